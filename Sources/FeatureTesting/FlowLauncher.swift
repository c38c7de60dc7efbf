import FeatureJSON
import Foundation
import HostKit

/// The `FeatureLauncher` of a `FlowTestStore`: the real coordinator presents features through it,
/// and it records what a test asserts. Each feature is a real `Store` on the manual clock; every
/// action it applies (with the state before and after), every step it emits (with the navigation
/// that followed), and what popping it cancelled.
///
/// Stores call in on their threads, the coordinator on its queue, the test on its own.
// @unchecked: every mutable field is guarded by `condition`.
final class FlowLauncher: FeatureLauncher, @unchecked Sendable {
  struct Settings: Sendable {
    /// Config JSON by feature id.
    var configs: [String: String]
    var maxFeedbackSteps: Int
    var instances: InstanceFactory
    var timeout: Duration
  }

  /// Something a feature emitted that the test has to receive.
  enum Emission: Sendable {
    case action(ActionLog.Entry)
    /// A navigation step; `outcome` is nil until the coordinator handled it.
    case step(json: String, outcome: Outcome?)

    var text: String {
      switch self {
      case .action(let entry): entry.action
      case .step(let json, _): "step \(json)"
      }
    }
  }

  /// What a navigation did: the stack after it and what it popped, or why nothing moved.
  enum Outcome: Sendable {
    case navigated(stack: [FlowFrame], retired: [Retirement])
    case ignored(String)
  }

  /// A feature popped or replaced, and the effects it had in flight when it was stopped.
  struct Retirement: Sendable, Equatable {
    var id: String
    var effects: Int
  }

  /// Everything one presented feature did.
  // @unchecked: every mutable field is guarded by the launcher's `condition`.
  final class Record: @unchecked Sendable {
    let feature: PresentedFeature
    var state: JSONValue
    var user: [ActionLog.Entry] = []
    var emitted: [Emission] = []
    var consumed = 0
    var retired = false
    var pauses: [HostError] = []
    /// The first loss of its instance, and the action it was applying (exploring tells a hang
    /// from a crash by it).
    var lost: (loss: InstanceLoss, action: String?)?

    init(feature: PresentedFeature, state: JSONValue) {
      self.feature = feature
      self.state = state
    }

    var id: String { feature.id }
    var pending: ArraySlice<Emission> { emitted[consumed...] }
  }

  let condition = NSCondition()
  let settings: Settings
  // Guarded by `condition`.
  /// Weak: the coordinator holds its launcher.
  weak var coordinator: Coordinator?
  private var records: [Int: Record] = [:]
  /// Steps emitted and not yet handled by the coordinator, oldest first: (feature number, index).
  private var unhandledSteps: [(number: Int, index: Int)] = []
  /// Features retired since the last navigation was recorded.
  private var retiring: [Retirement] = []
  /// The last navigation a command (`:open`, `:back`, `:focus`) or the start made.
  private(set) var lastCommand: (step: String, outcome: Outcome)?
  private(set) var stack: [FlowFrame] = []

  init(settings: Settings) {
    self.settings = settings
  }

  // MARK: - FeatureLauncher (the coordinator's queue)

  func launch(_ record: PluginRecord, number: Int, journal: String?) throws(HostError) -> PresentedFeature {
    // The test store loaded every plugin up front; dlopen hands back the library already open.
    let plugin = try record.load()
    let store = try Store(
      plugin: plugin, config: settings.configs[plugin.id] ?? "{}",
      options: Store.Options(maxFeedbackSteps: settings.maxFeedbackSteps, rendersViews: false, clock: .manual),
      instances: settings.instances, observer: { [weak self] event in self?.hear(event, number: number) })
    let feature = PresentedFeature(plugin: plugin, store: store, number: number)
    let before = (try? JSONValue.parse(store.state())) ?? .null
    condition.lock()
    records[number] = Record(feature: feature, state: before)
    condition.unlock()
    do {
      try store.start()
    } catch {
      store.stop()
      throw error
    }
    return feature
  }

  func retire(_ feature: PresentedFeature) {
    let effects = feature.store.effectsRunning
    feature.store.stop()
    condition.lock()
    records[feature.number]?.retired = true
    retiring.append(Retirement(id: feature.id, effects: effects))
    condition.broadcast()
    condition.unlock()
  }

  func record(step: String, frames: [(features: [PresentedFeature], focus: Int)]) {
    let stack = frames.map { FlowFrame(features: $0.features.map(\.id), focus: $0.focus) }
    condition.lock()
    defer { condition.unlock() }
    self.stack = stack
    let outcome = Outcome.navigated(stack: stack, retired: retiring)
    retiring = []
    // Commands are named ':open ID', ':back', ':focus ID'; the flow's start "start". Anything
    // else is a feature's step, handled in the order they were emitted.
    if step.hasPrefix(":") || step == "start" {
      lastCommand = (step, outcome)
    } else {
      settleStep(outcome)
    }
  }

  func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {
    // What a test looks at next is what the features reached once their first actions applied.
    for feature in features { feature.store.waitUntilIdle(timeout: settings.timeout) }
  }

  func log(_ line: String, isNote: Bool) {
    // Notes say why a step moved nothing; the navigation log proper is not asked for.
    guard isNote else { return }
    condition.lock()
    retiring = []
    settleStep(.ignored(line))
    condition.unlock()
  }

  /// Gives the oldest unhandled step its outcome. With the lock held.
  private func settleStep(_ outcome: Outcome) {
    guard !unhandledSteps.isEmpty else { return }
    let (number, index) = unhandledSteps.removeFirst()
    guard let record = records[number], case .step(let json, _) = record.emitted[index] else { return }
    record.emitted[index] = .step(json: json, outcome: outcome)
    condition.broadcast()
  }

  // MARK: - Store events (store threads)

  private func hear(_ event: StoreEvent, number: Int) {
    switch event {
    case .applied(_, let action, let source, let changed):
      recordAction(action, source: source, reportedChange: changed, rejection: nil, number: number)
    case .rejected(let action, let source, let error, _):
      recordAction(action, source: source, reportedChange: false, rejection: error, number: number)
    case .step(let json):
      condition.lock()
      defer { condition.unlock() }
      guard let record = records[number] else { return }
      record.emitted.append(.step(json: json, outcome: nil))
      unhandledSteps.append((number, record.emitted.count - 1))
      // Queued while the lock is held, so a waiter that sees the step can flush it.
      coordinator?.receive(step: json, from: record.feature)
      condition.broadcast()
    case .paused(let error), .closed(let error):
      // A store without a journal closes when its instance is lost: the test hears it as a pause.
      condition.lock()
      records[number]?.pauses.append(error)
      condition.broadcast()
      condition.unlock()
    case .instanceLost(let loss, _, let action):
      condition.lock()
      if records[number]?.lost == nil { records[number]?.lost = (loss, action) }
      condition.unlock()
    case .viewChanged, .journalFailed, .log, .instanceRestarted, .emitRefused, .journalUnsaved,
      .journalSaved, .refusedBySandbox:
      break
    }
  }

  private func recordAction(
    _ action: String, source: ActionSource, reportedChange: Bool, rejection: PluginCallError?, number: Int
  ) {
    condition.lock()
    let record = records[number]
    let before = record?.state ?? .null
    condition.unlock()
    guard let record else { return }
    // On the store thread, so `perform` runs at once: the state right after this action.
    let text = record.feature.store.perform { instance in
      Result { () throws(PluginCallError) in try instance.snapshot() }
    }
    let after: JSONValue
    switch text {
    case .success(let json): after = (try? JSONValue.parse(json)) ?? .string("<snapshot is not JSON: \(json)>")
    case .failure(let error): after = .string("<snapshot failed: \(error)>")
    }
    let entry = ActionLog.Entry(
      action: action, source: source, before: before, after: after, reportedChange: reportedChange,
      rejection: rejection)
    condition.lock()
    record.state = after
    switch source {
    case .user: record.user.append(entry)
    case .lifecycle: break
    case .effect, .feedback, .navigation: record.emitted.append(.action(entry))
    }
    condition.broadcast()
    condition.unlock()
  }

  // MARK: - For the test (its own threads)

  /// Every feature launched so far, in presentation order.
  var all: [Record] {
    condition.lock()
    defer { condition.unlock() }
    return records.keys.sorted().compactMap { records[$0] }
  }

  /// The features launched and not retired, in presentation order.
  var live: [Record] { locked { allLocked.filter { !$0.retired } } }

  /// The emissions not received yet, each with its feature's id, in presentation order.
  var waiting: [(id: String, emission: Emission)] {
    locked { allLocked.flatMap { record in record.pending.map { (record.id, $0) } } }
  }

  /// Every feature launched so far; with the lock held.
  var allLocked: [Record] { records.keys.sorted().compactMap { records[$0] } }

  /// Runs `body` with the lock held.
  func locked<T>(_ body: () -> T) -> T {
    condition.lock()
    defer { condition.unlock() }
    return body()
  }

  /// Clears the last command's outcome before a new command.
  func forgetCommand() { locked { lastCommand = nil } }

  /// Waits until `record` has applied user action number `number` (from 1), or it paused, or
  /// the deadline passed.
  func waitForUserAction(_ number: Int, of record: Record, until deadline: Date) -> (ActionLog.Entry?, HostError?) {
    condition.lock()
    defer { condition.unlock() }
    let pausesBefore = record.pauses.count
    while record.user.count < number {
      if record.pauses.count > pausesBefore, let pause = record.pauses.last { return (nil, pause) }
      if !condition.wait(until: deadline) { break }
    }
    return record.user.count >= number ? (record.user[number - 1], nil) : (nil, nil)
  }

  /// Waits until every live feature is idle, the navigation they caused is done, and the ones
  /// it presented are idle too.
  func waitUntilIdle() {
    for _ in 0..<8 {
      let before = live
      for record in before { record.feature.store.waitUntilIdle(timeout: settings.timeout) }
      coordinator?.flush()
      if live.map(ObjectIdentifier.init) == before.map(ObjectIdentifier.init) { return }
    }
  }

  /// How a wait for an emission ended.
  enum Arrival: Sendable {
    case found(Record, index: Int, Emission)
    /// Exhaustive: the next emissions of the features asked about, none of them the one expected.
    case mismatch([(id: String, emission: Emission)])
    /// Nothing more arrived; the flow settled with this many timers waiting on the manual clock.
    case settled(timers: Int, pauses: [HostError])
    case timedOut(effects: Int)
  }

  /// Waits for the emission `matches` accepts: the next one of each feature (of feature `id`, or
  /// of any), or, not exhaustive, any one not received yet, skipping those before it. Marks it
  /// (and anything skipped) received.
  func waitForEmission(
    from id: String?, exhaustive: Bool, until deadline: Date, matches: (Emission) -> Bool
  ) -> Arrival {
    var settled: Settled?
    while true {
      condition.lock()
      let candidates = records.keys.sorted().compactMap { records[$0] }.filter { id == nil || $0.id == id }
      var heads: [(id: String, emission: Emission)] = []
      for record in candidates {
        let range =
          exhaustive ? record.consumed..<min(record.consumed + 1, record.emitted.count) : record.pending.indices
        for index in range {
          let emission = record.emitted[index]
          if matches(emission) {
            record.consumed = index + 1
            condition.unlock()
            return .found(record, index: index, emission)
          }
          heads.append((record.id, emission))
        }
      }
      let pauses = candidates.flatMap(\.pauses)
      // The next emission of a feature comes in its order: one that does not match fails now (or
      // once nothing more arrives, when any feature's might), and counts as received, as in
      // FeatureTestStore, so one miss is reported once.
      if exhaustive, !heads.isEmpty, id != nil || settled != nil {
        for record in candidates where record.consumed < record.emitted.count { record.consumed += 1 }
        condition.unlock()
        return .mismatch(heads)
      }
      condition.unlock()
      switch settled {
      case .settled(let timers):
        return .settled(timers: timers, pauses: pauses)
      case .timedOut(let effects):
        return .timedOut(effects: effects)
      case nil:
        settled = waitUntilSettled(until: deadline)
      }
    }
  }

  /// How a wait for the whole flow to settle ended.
  enum Settled: Sendable, Equatable {
    /// Nothing queued anywhere, no effect in flight but timers on the manual clock.
    case settled(timers: Int)
    /// The bound passed with this many effects (timers aside) still running.
    case timedOut(effects: Int)
  }

  /// Waits until no live feature has anything queued or any effect in flight but manual-clock
  /// timers (which never fire on their own), and every step was handled.
  ///
  /// Signal-driven for features with no timer pending; one with both a timer and another effect
  /// in flight is checked again each time anything is recorded, or every 20 ms.
  func waitUntilSettled(until deadline: Date) -> Settled {
    while true {
      waitUntilIdle()
      let before = live
      var busy = 0
      for record in before {
        let store = record.feature.store
        if store.pendingTimers == 0 {
          let left = max(0, deadline.timeIntervalSinceNow)
          let result = store.waitUntilSettled(timeout: .milliseconds(Int64(left * 1000)))
          if result == .timedOut { busy += store.effectsRunning }
        } else {
          busy += max(0, store.effectsRunning - store.pendingTimers)
        }
      }
      coordinator?.flush()
      let stillLive = live
      let quiet = stillLive.allSatisfy { record in
        record.feature.store.effectsRunning == record.feature.store.pendingTimers
          && record.feature.store.waitUntilIdle(timeout: .zero)
      }
      if busy == 0 && quiet && stillLive.map(ObjectIdentifier.init) == before.map(ObjectIdentifier.init) {
        return .settled(timers: stillLive.reduce(0) { $0 + $1.feature.store.pendingTimers })
      }
      if deadline.timeIntervalSinceNow <= 0 {
        return .timedOut(
          effects: stillLive.reduce(0) { $0 + max(0, $1.feature.store.effectsRunning - $1.feature.store.pendingTimers) }
        )
      }
      condition.lock()
      _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.02)))
      condition.unlock()
    }
  }
}
