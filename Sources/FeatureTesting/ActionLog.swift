import FeatureJSON
import Foundation
import HostKit

/// What a `FeatureTestStore` saw its store apply, with the state before and after each action,
/// and the waits on it. Written on the store thread (from the store's observer), read by the test.
// @unchecked: every mutable field is guarded by `condition`.
final class ActionLog: @unchecked Sendable {
  /// One action the store applied or refused.
  struct Entry: Sendable {
    var action: String
    var source: ActionSource
    var before: JSONValue
    var after: JSONValue
    /// What the plugin's FH_DISPATCH_STATE_CHANGED flag said.
    var reportedChange: Bool
    var rejection: PluginCallError?

    var changed: Bool { !JSONComparison.equal(before, after) }
  }

  /// How a wait for the next emitted action ended.
  enum Arrival: Sendable {
    case entry(Entry)
    /// Nothing queued, nothing applying, no effect in flight, and nothing more arrived.
    case settled
    case paused(HostError)
    case stopped
    /// The bound passed; `effects` were still in flight.
    case timedOut(effects: Int)
  }

  private let condition = NSCondition()
  // Guarded by `condition`.
  // Weak: the store holds this log (its observer); a strong reference back would be a cycle.
  private weak var store: Store?
  private var state: JSONValue = .null
  private var all: [Entry] = []
  private var lifecycle: [Entry] = []
  private var user: [Entry] = []
  private var emitted: [Entry] = []
  private var consumed = 0
  private var pauses: [HostError] = []
  private var logLines: [(level: LogLevel, message: String)] = []
  private var settleAnswers: [Int: SettleResult] = [:]
  private var settleGeneration = 0

  /// The observer to give the store. Reads the state after every action, on the store thread.
  var observer: @Sendable (StoreEvent) -> Void {
    { [self] event in
      switch event {
      case .applied(_, let action, let source, let changed):
        record(action, source: source, reportedChange: changed, rejection: nil)
      case .rejected(let action, let source, let error, _):
        record(action, source: source, reportedChange: false, rejection: error)
      case .paused(let error):
        condition.lock()
        pauses.append(error)
        condition.broadcast()
        condition.unlock()
      case .log(let level, let message):
        condition.lock()
        logLines.append((level, message))
        condition.unlock()
      default:
        // Views and the journal do not bear on what a test asserts.
        break
      }
    }
  }

  /// What the plugin logged (and the store about it), in order.
  var logs: [(level: LogLevel, message: String)] {
    condition.lock()
    defer { condition.unlock() }
    return logLines
  }

  /// Attaches the store whose state the observer reads, and the state before the lifecycle
  /// action; before `start`.
  func attach(_ store: Store, state: JSONValue) {
    condition.lock()
    self.store = store
    self.state = state
    condition.unlock()
  }

  private func record(_ action: String, source: ActionSource, reportedChange: Bool, rejection: PluginCallError?) {
    condition.lock()
    let store = self.store
    let before = state
    condition.unlock()
    // On the store thread, so `perform` runs at once: the state right after this action.
    let text = store?.perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }
    let after: JSONValue
    switch text {
    case .success(let json):
      after = (try? JSONValue.parse(json)) ?? .string("<snapshot is not JSON: \(json)>")
    case .failure(let error):
      after = .string("<snapshot failed: \(error)>")
    case nil:
      after = before
    }
    let entry = Entry(
      action: action, source: source, before: before, after: after, reportedChange: reportedChange,
      rejection: rejection)
    condition.lock()
    state = after
    all.append(entry)
    switch source {
    case .lifecycle: lifecycle.append(entry)
    case .user: user.append(entry)
    case .effect, .feedback, .navigation: emitted.append(entry)
    }
    condition.broadcast()
    condition.unlock()
  }

  /// Waits for the lifecycle action the store sends at start.
  func waitForLifecycle(until deadline: Date) -> Entry? {
    condition.lock()
    defer { condition.unlock() }
    while lifecycle.isEmpty {
      if !condition.wait(until: deadline) { return lifecycle.first }
    }
    return lifecycle.first
  }

  /// Waits until the store has applied (or refused) user action number `number` (from 1).
  /// Returns nil with the pause that stopped it, or nil and nil when the bound passed.
  func waitForUserAction(_ number: Int, until deadline: Date) -> (Entry?, HostError?) {
    condition.lock()
    defer { condition.unlock() }
    let pausesBefore = pauses.count
    while user.count < number {
      if pauses.count > pausesBefore, let pause = pauses.last { return (nil, pause) }
      if !condition.wait(until: deadline) { break }
    }
    return user.count >= number ? (user[number - 1], nil) : (nil, nil)
  }

  /// Every action applied or refused so far, in order.
  var entries: [Entry] {
    condition.lock()
    defer { condition.unlock() }
    return all
  }

  /// The emitted actions not received yet.
  var pending: [Entry] {
    condition.lock()
    defer { condition.unlock() }
    return Array(emitted[consumed...])
  }

  /// Marks the next `count` pending actions as received.
  func consume(_ count: Int) {
    condition.lock()
    consumed = min(emitted.count, consumed + count)
    condition.unlock()
  }

  /// Waits until pending action number `index` (0 = the next one) arrives, or the store settles,
  /// pauses or stops first, or the bound passes.
  func waitForEmitted(at index: Int, store: Store, until deadline: Date) -> Arrival {
    condition.lock()
    defer { condition.unlock() }
    if consumed + index < emitted.count { return .entry(emitted[consumed + index]) }
    let generation = startSettleWatch(store: store, until: deadline)
    while true {
      if consumed + index < emitted.count { return .entry(emitted[consumed + index]) }
      if let answer = settleAnswers[generation] {
        switch answer {
        case .settled: return .settled
        case .stopped: return .stopped
        case .paused: return .paused(pauses.last ?? HostError("the store is paused"))
        case .timedOut: return .timedOut(effects: store.effectsRunning)
        }
      }
      if !condition.wait(until: deadline) {
        // The watch answers at the same deadline; give it the last word on in-flight effects.
        if settleAnswers[generation] == nil { return .timedOut(effects: store.effectsRunning) }
      }
    }
  }

  /// Waits until the store settles (or pauses, stops, or the bound passes).
  func waitUntilSettled(store: Store, until deadline: Date) -> SettleResult {
    store.waitUntilSettled(timeout: .milliseconds(Int64(max(0, deadline.timeIntervalSinceNow) * 1000)))
  }

  /// Asks the store, on a thread of its own, to say when it settles; the answer lands in
  /// `settleAnswers[generation]` and wakes the waiters. Called with the lock held.
  private func startSettleWatch(store: Store, until deadline: Date) -> Int {
    settleGeneration += 1
    let generation = settleGeneration
    let milliseconds = Int64(max(0, deadline.timeIntervalSinceNow) * 1000)
    Thread.detachNewThread { [self] in
      let answer = store.waitUntilSettled(timeout: .milliseconds(milliseconds))
      condition.lock()
      settleAnswers[generation] = answer
      condition.broadcast()
      condition.unlock()
    }
    return generation
  }
}
