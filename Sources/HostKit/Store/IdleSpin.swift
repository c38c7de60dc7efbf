#if canImport(Glibc)
  import Glibc
#endif

/// The store thread's short spin for the next item before it sleeps on the inbox's condition:
/// a sender a few microseconds behind (an explorer, a pipe's reader) then costs neither side a
/// futex wake-up. The spin follows the waits seen, as the worker's for its next request does: a
/// wait that outlasted it halves it (down to `least`), one that a longer spin would have caught
/// doubles it (up to `most`), so an idle store soon spins next to nothing. Store thread only.
struct IdleSpin {
  static let most = Duration.microseconds(20)
  static let least = Duration.microseconds(1)

  private(set) var budget = Self.most
  /// The arrivals counted when the last batch was taken.
  private var taken: UInt64 = 0
  private let clock = ContinuousClock()

  /// `StoreExternalState.takeBatch`, after spinning while nothing new arrived.
  mutating func takeBatch(from external: StoreExternalState, into batch: inout [InboxItem]) -> Bool {
    guard external.arrived == taken else { return external.takeBatch(into: &batch, taken: &taken) }
    let start = clock.now
    let deadline = start + budget
    var turns = 0
    while external.arrived == taken {
      turns += 1
      // Past the first turns the sender may be waiting for this CPU: each turn then yields it.
      if turns > 64 { sched_yield() }
      // The clock every 64 turns.
      if turns & 63 == 0, clock.now >= deadline {
        let going = external.takeBatch(into: &batch, taken: &taken)
        // How long the item took to come: within the limit, a longer spin would have caught it.
        budget = clock.now - start < Self.most ? min(budget * 2, Self.most) : max(budget / 2, Self.least)
        return going
      }
    }
    return external.takeBatch(into: &batch, taken: &taken)
  }
}
