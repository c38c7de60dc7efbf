import Synchronization

/// The states of one instance the probe has already checked (snapshot -> restore -> snapshot
/// gave the same bytes, the view was clean), so each distinct state is round-tripped once: a
/// state seen again (after `:undo`, a feedback loop that comes back, a counter going up and
/// down) costs one snapshot. Exact bytes, not hashes: a collision cannot hide a state.
///
/// Bounded: past `limit` bytes of states it starts again empty (the miss path is the full
/// probe, so forgetting only costs time). Any thread.
public final class ProbeCache: Sendable {
  private struct Seen {
    var states = StateTable()
    var bytes = 0
  }
  private let seen = Mutex(Seen())
  public let limit: Int

  public init(limit: Int = 16 << 20) { self.limit = limit }

  /// Whether `state` was checked already.
  public func contains(_ state: String) -> Bool { seen.withLock { $0.states.contains(state) } }

  /// Notes `state` and says whether it is new: one lookup where `contains` then `insert` make
  /// two. A new state that then fails its checks must be taken out again (`remove`).
  public func insertIfNew(_ state: String) -> Bool {
    seen.withLock { seen in
      let size = state.utf8.count
      if seen.bytes + size > limit {
        seen.states.removeAll()
        seen.bytes = 0
      }
      guard seen.states.insert(state) else { return false }
      seen.bytes += size
      return true
    }
  }

  /// Takes `state` out: it was noted by `insertIfNew` but failed its checks.
  public func remove(_ state: String) {
    seen.withLock { seen in
      if seen.states.remove(state) { seen.bytes -= state.utf8.count }
    }
  }

  /// Notes `state` as checked.
  public func insert(_ state: String) {
    seen.withLock { seen in
      let size = state.utf8.count
      if seen.bytes + size > limit {
        seen.states.removeAll()
        seen.bytes = 0
      }
      if seen.states.insert(state) { seen.bytes += size }
    }
  }

  /// How many states it holds.
  public var count: Int { seen.withLock { $0.states.count } }
}
