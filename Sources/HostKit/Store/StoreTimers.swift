import Dispatch

/// What time a store's timers follow.
public enum StoreClock: Sendable, Equatable {
  /// Real time: a timer fires once its delay has passed.
  case real
  /// Time stands still until `Store.advanceClock(by:)` moves it: for tests of paced features.
  case manual
}

/// The timers an instance scheduled (`fh.clock/1`) that have neither fired nor been cancelled,
/// and the manual clock's time.
///
/// Guarded by the store's lock; the store fires them (a dispatch queue for real time,
/// `advance(by:)` for the manual clock).
struct StoreTimers {
  struct Timer {
    let deadline: UInt64
    let actions: [String]
    let source: ActionSource
  }

  let clock: StoreClock
  private var timers: [UInt64: Timer] = [:]
  private var nextID: UInt64 = 1
  /// The manual clock's time, in nanoseconds since the store began.
  private var manualNow: UInt64 = 0

  init(clock: StoreClock) {
    self.clock = clock
  }

  var count: Int { timers.count }

  /// Timers of the feedback loop: a regulation's pace, not work a person waits for.
  var feedbackCount: Int { timers.values.count { $0.source == .feedback } }

  /// Adds a timer due `nanoseconds` from now; returns its id (from 1).
  mutating func schedule(after nanoseconds: UInt64, actions: [String], source: ActionSource) -> UInt64 {
    let id = nextID
    nextID += 1
    let now = clock == .manual ? manualNow : DispatchTime.now().uptimeNanoseconds
    let (deadline, overflow) = now.addingReportingOverflow(nanoseconds)
    timers[id] = Timer(deadline: overflow ? .max : deadline, actions: actions, source: source)
    return id
  }

  func isPending(_ id: UInt64) -> Bool { timers[id] != nil }

  /// Removes timer `id`: what it was, or nil when it fired or was cancelled already.
  mutating func remove(_ id: UInt64) -> Timer? { timers.removeValue(forKey: id) }

  /// Moves the manual clock forward; returns the timers due by then, in deadline order (then the
  /// order they were scheduled).
  mutating func advance(by nanoseconds: UInt64) -> [UInt64] {
    manualNow += nanoseconds
    return timers.filter { $0.value.deadline <= manualNow }.sorted {
      ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
    }.map(\.key)
  }

  /// Moves the manual clock to the earliest timer's deadline; returns the timers due then (none
  /// when no timer waits).
  mutating func advanceToNextDeadline() -> [UInt64] {
    guard let next = timers.values.map(\.deadline).min() else { return [] }
    return advance(by: next > manualNow ? next - manualNow : 0)
  }

  /// Forgets every timer (stop, a lost or replaced instance); returns how many there were.
  @discardableResult
  mutating func removeAll() -> Int {
    let count = timers.count
    timers.removeAll()
    return count
  }
}
