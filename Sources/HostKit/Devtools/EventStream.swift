import Foundation

/// One page's stream of server-sent events: the devtools listener queues events, the page's
/// connection thread reads them out (blocking until one comes).
///
/// Bounded: a reader that falls more than `limit` events behind loses them and is told to fetch
/// what it shows again (`event: resync`), so a stuck page never holds the run's memory.
public final class EventStream: Sendable {
  private let condition = Guarded()
  let limit: Int
  /// How long a read waits before it sends a comment line: a closed page is noticed when that
  /// write fails.
  let keepAlive: TimeInterval

  public init(limit: Int = 4096, keepAlive: TimeInterval = 2) {
    self.limit = limit
    self.keepAlive = keepAlive
  }

  /// Queues one event (`event` name, `data` on one line). Any thread; never blocks on the reader.
  public func send(_ event: String, data: String) {
    let text = "event: \(event)\ndata: \(data)\n\n"
    condition.change { queue in
      guard !queue.ended else { return }
      if queue.pending.count >= limit {
        queue.pending.removeAll()
        queue.pending.append(Array("event: resync\ndata: {}\n\n".utf8))
      }
      queue.pending.append(Array(text.utf8))
    }
  }

  /// Ends the stream: the reader's next read returns the end.
  public func end() { condition.change { $0.ended = true } }

  /// Whether the stream has ended (the server stopped, or the page is gone).
  public var hasEnded: Bool { condition.read { $0.ended } }

  /// Copies queued events into `buffer` (whole events while they fit); waits up to `keepAlive`
  /// for one. Returns the byte count, or -1 at the end. The connection's thread.
  func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
    var written = 0
    let ended = condition.wait(until: Date(timeIntervalSinceNow: keepAlive)) { queue in
      // The events taken are removed at once: a long queue is drained in one pass.
      var taken = 0
      for event in queue.pending {
        let count = Swift.min(event.count, max - written)
        guard count > 0 else { break }
        event.withUnsafeBytes { source in
          if let base = source.baseAddress {
            (buffer + written).update(from: base.assumingMemoryBound(to: CChar.self), count: count)
          }
        }
        written += count
        if count < event.count {
          queue.pending[taken] = Array(event[count...])
          break
        }
        taken += 1
      }
      queue.pending.removeFirst(taken)
      return queue.ended && written == 0
    }
    if ended { return -1 }
    if written == 0 && max >= 8 {
      // Nothing came: a comment line, which the page ignores, to find out whether it is there.
      let ping = Array(": ping\n\n".utf8)
      ping.withUnsafeBytes { source in
        if let base = source.baseAddress {
          buffer.update(from: base.assumingMemoryBound(to: CChar.self), count: ping.count)
        }
      }
      return ping.count
    }
    return written
  }
}

/// The queue of an `EventStream` under a condition variable.
// @unchecked: every access to `queue` and `readerAsleep` holds `lock`.
private final class Guarded: @unchecked Sendable {
  struct Queue {
    var pending: [[UInt8]] = []
    var ended = false
  }

  private let lock = NSCondition()
  private var queue = Queue()

  /// Whether the reader is asleep in `wait`: only then is it woken (a reader busy writing takes
  /// what came meanwhile at its next read, without a wake-up per event).
  private var readerAsleep = false

  func change(_ body: (inout Queue) -> Void) {
    lock.lock()
    body(&queue)
    if readerAsleep { lock.broadcast() }
    lock.unlock()
  }

  func read<T>(_ body: (Queue) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(queue)
  }

  /// Waits until there is something pending, the queue ended or `deadline` passed, then runs
  /// `body`; returns what it returns.
  func wait(until deadline: Date, _ body: (inout Queue) -> Bool) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    while queue.pending.isEmpty && !queue.ended {
      readerAsleep = true
      let woken = lock.wait(until: deadline)
      readerAsleep = false
      if !woken { break }
    }
    return body(&queue)
  }
}
