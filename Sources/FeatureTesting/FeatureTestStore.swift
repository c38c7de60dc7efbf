import FeatureJSON
import Foundation
import HostKit
import Synchronization
import Testing

/// Drives one instance of a real plugin (`.so`, Swift or C) through the C ABI and HostKit's
/// `Store`, exhaustively, from Swift Testing tests.
///
///     let store = try await FeatureTestStore(plugin: "Counter")
///     await store.send("increment", assert: ["count": 1, "clicks": 1])
///     await store.finish()
///
/// - `send` applies an action typed by a person and checks the state right after it.
/// - `receive` waits (bounded by `timeout`, on the store's own signals, never by sleeping) for the
///   next action the plugin emitted from an effect or a feedback, and checks it and the state
///   right after it.
/// - `finish` waits for the store to settle, then fails if an emitted action was not received or
///   an effect is still in flight, and stops the instance. Call it at the end of every test.
///
/// Exhaustive by default: a state change nobody asserted, an action sent while emitted ones wait
/// to be received, and anything left at `finish` fail the test. `exhaustivity: .off` lets a test
/// assert only what it cares about. Failures are recorded with Swift Testing's `Issue.record` at
/// the caller's line, saying what happened, why it fails, and how to fix it.
///
/// The first action is the lifecycle one the host sends at start (`created`, or `restored` when
/// `restoring` is given); the state after it is `initialState` and needs no assertion.
/// Thread-safe, but meant to be used by one test at a time.
public final class FeatureTestStore: Sendable {
  /// Whether every change and every emitted action must be asserted.
  public enum Exhaustivity: Sendable, Equatable {
    case on, off
  }

  public let plugin: LoadedPlugin
  public let exhaustivity: Exhaustivity
  /// The bound on every wait: for an action to be applied, to arrive, or for the store to settle.
  public let timeout: Duration
  /// The state after the lifecycle action.
  public let initialState: JSONValue

  /// Where the plugin under test runs.
  public enum Isolation: Sendable, Equatable {
    /// In the test's process: fastest; a crash ends the test run.
    case none
    /// In a worker process of the built host, as `host run` runs it by default; a call that
    /// takes longer than `callTimeout` seconds kills the worker.
    case process(callTimeout: Double = RunSettingCatalogue.callTimeout.defaultSeconds)

    var instances: InstanceFactory {
      switch self {
      case .none: .inProcess
      case .process(let callTimeout): .worker(executable: HostProcess.executable, callTimeout: callTimeout)
      }
    }
  }

  private let store: Store
  private let log: ActionLog
  /// How the store was made, for the fresh ones `explore` runs in.
  let exploration: ExplorationSetup
  private struct Progress {
    var userActions = 0
    var stopped = false
    var finished = false
  }
  private let progress = Mutex(Progress())
  /// Where the test made the store: a forgotten `finish` is reported there.
  private let location: SourceLocation

  /// Loads `plugin` and starts an instance of it.
  ///
  /// - Parameters:
  ///   - plugin: a path to a plugin library, or the name of a library product of this package
  ///     (`"Counter"` for `libCounter.so` beside the test executable).
  ///   - config: the config object, as `host run --config` would pass it. Point effects at fakes
  ///     here: a loopback server or a `file://` URL for kittens; `interval: 0` for levels.
  ///   - state: a state to restore before start; the lifecycle action is then `restored`.
  ///   - exhaustivity: `.off` to assert only part of what happens.
  ///   - timeout: the bound on every wait.
  ///   - maxFeedbackSteps: the runaway guard's bound, as `host run --max-feedback-steps`.
  ///   - isolation: where the plugin runs: in this process (the default), or in a worker process
  ///     as `host run` runs it.
  /// - Throws: `PluginLoadError` when the library cannot be loaded, `HostError` when the plugin
  ///   refuses the config or the restored state.
  public init(
    plugin: String, config: JSONValue = [:], restoring state: JSONValue? = nil,
    exhaustivity: Exhaustivity = .on, timeout: Duration = RunSettingCatalogue.settleTimeout.defaultValue,
    maxFeedbackSteps: Int = RunSettingCatalogue.maxFeedbackSteps.defaultValue,
    clock: Store.Clock = .real, isolation: Isolation = .none,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async throws {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    self.location = location
    self.plugin = try PluginLoader.load(PluginPaths.resolve(plugin))
    self.exhaustivity = exhaustivity
    self.timeout = timeout
    exploration = ExplorationSetup(
      config: config.serialized(), maxFeedbackSteps: maxFeedbackSteps, clock: clock, instances: isolation.instances)
    let log = ActionLog()
    let store = try Store(
      plugin: self.plugin, config: config.serialized(),
      // The log snapshots the state after every action, which a batch sent ahead would not allow.
      options: Store.Options(
        maxFeedbackSteps: maxFeedbackSteps, rendersViews: false, clock: clock, batchesDispatches: false),
      instances: isolation.instances, observer: log.observer)
    // The state before the lifecycle action: the restored one, or the fresh one.
    log.attach(store, state: state ?? ((try? JSONValue.parse(store.state())) ?? .null))
    self.log = log
    self.store = store
    do {
      try store.start(restoring: state?.serialized())
    } catch {
      store.stop()
      throw error
    }
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    let first = await offPool { log.waitForLifecycle(until: deadline) }
    initialState = first?.after ?? .null
    guard let first else {
      Self.fail(
        "The lifecycle action was not applied within \(timeout)",
        why: "the store did not get to it; the plugin may be stuck in start",
        help: "check that start returns at once (effects belong on threads of their own)", at: location)
      return
    }
    if let rejection = first.rejection {
      Self.fail(
        "The plugin refused the lifecycle action \(first.action)", why: rejection.description,
        help: "a feature must accept {\"type\":\"created\"} and {\"type\":\"restored\"} (FeatureKit does)",
        at: location)
    }
  }

  deinit {
    // A test that forgot `finish` must not leave the store thread and its effects running.
    store.stop()
    if !progress.withLock({ $0.finished }) { Self.failForgottenFinish("FeatureTestStore", at: location) }
  }

  // MARK: - Sending

  /// Sends `action` as a person would, waits until the store applied it, and checks the state
  /// right after it against `expected` and `check`.
  ///
  /// Exhaustive: fails if actions the plugin emitted are still waiting to be received, or if the
  /// state changed and neither `expected` nor `check` was given.
  public func send(
    _ action: TestAction, assert expected: ExpectedState? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ check: ((JSONValue) throws -> Void)? = nil
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let entry = await apply(action, at: location) else { return }
    Self.checkApplied(
      entry, refused: "The plugin refused \(entry.action)",
      help: "fix the action, or assert the refusal with send(_:rejectedWith:)", named: "sending \(entry.action)",
      expected: expected, check: check, exhaustivity: exhaustivity, at: location)
  }

  /// Sends `action` and checks that the plugin refuses it with a message containing `reason`,
  /// and leaves the state as it was.
  public func send(
    _ action: TestAction, rejectedWith reason: String,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let entry = await apply(action, at: location) else { return }
    guard let rejection = entry.rejection else {
      Self.fail(
        "Expected the plugin to refuse \(entry.action), but it applied it",
        why: entry.changed ? "the state changed:\n\(Self.diff(entry.before, entry.after))" : "the state did not change",
        help: "check the reducer's validation, or send the action with send(_:assert:)", at: location)
      return
    }
    if !rejection.message.contains(reason) {
      Self.fail(
        "The plugin refused \(entry.action) for another reason than expected",
        why: "its message \"\(rejection.message)\" does not contain \"\(reason)\"",
        help: "change rejectedWith: to a part of the message above", at: location)
    }
    if entry.changed {
      Self.fail(
        "The plugin refused \(entry.action) but changed the state (- before, + after):\n\(Self.diff(entry.before, entry.after))",
        why: "the ABI says a refused action leaves the state exactly as it was",
        help: "validate before mutating, or restore the old state when refusing", at: location)
    }
  }

  /// Resolves, sends and waits for one user action; nil when it could not be sent or applied.
  private func apply(_ action: TestAction, at location: SourceLocation) async -> ActionLog.Entry? {
    let json: String
    switch action.json(manifest: plugin.manifest) {
    case .success(let text):
      json = text
    case .failure(let error):
      Self.fail(
        "Cannot send '\(action.label)'", why: error.message,
        help: error.help ?? "write a typed line the catalogue knows, or JSON text", at: location)
      return nil
    }
    let waiting = log.pending
    if exhaustivity == .on, !waiting.isEmpty {
      Self.fail(
        "Sent \(json) while \(Self.count(waiting.count, "emitted action")) had not been received:\n"
          + waiting.map { "  \($0.action)" }.joined(separator: "\n"),
        why: "an exhaustive test asserts every action the plugin emits, in order",
        help: "call receive(...) for each before sending, or skipReceivedActions()", at: location)
    }
    let number: Int? = progress.withLock { progress in
      guard !progress.stopped else { return nil }
      progress.userActions += 1
      return progress.userActions
    }
    guard let number else {
      Self.fail(
        "Cannot send \(json): the store was stopped", why: "a stopped instance applies no action",
        help: "send before stop() or finish()", at: location)
      return nil
    }
    store.send(json, source: .user)
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    let log = self.log
    let (entry, pause) = await offPool { log.waitForUserAction(number, until: deadline) }
    guard let entry else {
      if let pause {
        Self.fail(
          "\(json) was not applied: the runaway guard paused the store", why: pause.message,
          help: "a feedback loop did not settle; raise maxFeedbackSteps: or fix the feedback", at: location)
      } else {
        Self.fail(
          "\(json) was not applied within \(timeout)", why: "the store is still busy with earlier actions",
          help: "raise timeout:, or check for a feedback loop", at: location)
      }
      return nil
    }
    return entry
  }

  // MARK: - Receiving

  /// Waits for the next action the plugin emitted (from an effect or a feedback), checks that it
  /// matches `expected`, and checks the state right after it against `state` and `check`.
  ///
  /// Non-exhaustive stores skip emitted actions that do not match until one does.
  public func receive(
    _ expected: ExpectedAction, assert state: ExpectedState? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ check: ((JSONValue) throws -> Void)? = nil
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    if case .invalid(let error) = expected.match {
      Self.fail(
        "Cannot receive: \(error.message)", why: "the expectation itself is broken", help: "fix it", at: location)
      return
    }
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    var index = 0
    while true {
      let log = self.log
      let store = self.store
      let position = index
      let arrival = await offPool { log.waitForEmitted(at: position, store: store, until: deadline) }
      guard case .entry(let entry) = arrival else {
        failToReceive(expected, arrival, at: location)
        return
      }
      guard expected.matches(entry.action) else {
        if exhaustivity == .off {
          index += 1
          continue
        }
        log.consume(1)
        Self.fail(
          "Received \(entry.action), but expected \(expected.label)\(Self.actionDiff(expected, entry.action))",
          why: "the plugin emitted its actions in this order",
          help: "receive the actions in the order the plugin emits them, or fix the feature", at: location)
        return
      }
      log.consume(index + 1)
      Self.checkApplied(
        entry, refused: "The plugin refused its own emitted action \(entry.action)",
        help: "an effect or feedback must emit actions the reducer accepts", named: "receiving \(entry.action)",
        expected: state, check: check, exhaustivity: exhaustivity, at: location)
      return
    }
  }

  private func failToReceive(_ expected: ExpectedAction, _ arrival: ActionLog.Arrival, at location: SourceLocation) {
    let what = "Expected to receive \(expected.label)"
    switch arrival {
    case .entry:
      return
    case .settled:
      Self.fail(
        "\(what), but the plugin emitted nothing more",
        why: "the store settled: nothing queued and no effect in flight",
        help: "remove this receive, or check that the action before it starts the effect", at: location)
    case .stopped:
      Self.fail(
        "\(what), but the store has stopped", why: "stop() cancels effects; nothing arrives after it",
        help: "receive before stop()", at: location)
    case .paused(let error):
      Self.fail(
        "\(what), but the runaway guard paused the store", why: error.message,
        help: "a feedback loop did not settle; raise maxFeedbackSteps: or fix the feedback", at: location)
    case .timedOut(let effects):
      Self.fail(
        "\(what), but nothing arrived within \(timeout)",
        why: "\(Self.count(effects, "effect")) still in flight",
        help: "point the effect at a fake that answers (config), or raise timeout:", at: location)
    }
  }

  /// Waits until the store settles, then marks every action emitted so far as received.
  /// Fails (exhaustive stores only) when it does not settle within `timeout`.
  public func skipReceivedActions(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let result = await settle()
    log.consume(Int.max / 2)
    if exhaustivity == .on, result != .settled, result != .stopped {
      Self.fail(
        "The store did not settle before skipping received actions (\(result))",
        why: "actions may still arrive after the skip",
        help: "raise timeout:, or stop() first", at: location)
    }
  }

  // MARK: - The end

  /// Stops the instance now, cancelling its effects, and returns what stopping left behind.
  /// Emitted actions already applied still have to be received (or skipped) before `finish`.
  @discardableResult
  public func stop() async -> StopReport {
    progress.withLock { $0.stopped = true }
    let store = self.store
    return await offPool { store.stop() }
  }

  /// Ends the test: waits (up to `timeout`, or this bound) for the store to settle; fails if an
  /// emitted action was not received, an effect is still in flight, or the plugin emitted after
  /// stop; then stops the instance. A non-exhaustive store only stops.
  public func finish(
    timeout bound: Duration? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    progress.withLock { $0.finished = true }
    if exhaustivity == .on {
      let result = await settle(within: bound ?? timeout)
      let waiting = log.pending
      if !waiting.isEmpty {
        Self.fail(
          "\(Self.count(waiting.count, "action")) the plugin emitted \(waiting.count == 1 ? "was" : "were") never received:\n"
            + waiting.map { "  \($0.action)" }.joined(separator: "\n"),
          why: "an exhaustive test asserts every action the plugin emits",
          help: "add receive(...) for each, call skipReceivedActions(), or use exhaustivity: .off", at: location)
      }
      switch result {
      case .settled, .stopped:
        break
      case .timedOut:
        let effects = store.effectsRunning
        Self.fail(
          "\(Self.count(effects, "effect")) still in flight at the end of the test (waited \(bound ?? timeout))",
          why: "an exhaustive test ends only once every effect has finished",
          help: "receive what it emits, call stop() to cancel it (and assert that), or use exhaustivity: .off",
          at: location)
      case .paused:
        Self.fail(
          "The runaway guard paused the store before the end of the test",
          why: "a feedback loop did not settle within maxFeedbackSteps",
          help: "fix the feedback, raise maxFeedbackSteps:, or use exhaustivity: .off", at: location)
      }
    }
    let report = await stop()
    if report.late > 0 {
      Self.fail(
        "The plugin emitted \(Self.count(report.late, "action")) after stop returned",
        why: "the ABI says a plugin calls nothing on its host after stop",
        help: "cancel every effect in stop and wait for them before returning", at: location)
    }
  }

  // MARK: - Looking

  /// The state now, as the plugin's snapshot says (after everything queued before).
  public var state: JSONValue {
    get throws {
      try JSONValue.parse(try store.state())
    }
  }

  /// The view now, as the plugin renders it.
  public var view: String {
    get throws { try store.view() }
  }

  /// Waits until nothing is queued and no effect is in flight (or the store pauses, stops, or
  /// the bound passes), and says which.
  public func settle(within bound: Duration? = nil) async -> SettleResult {
    let store = self.store
    let bound = bound ?? timeout
    return await offPool { store.waitUntilSettled(timeout: bound) }
  }

  /// Lifts a runaway-guard pause (see `Store.resume`).
  public func resume() { store.resume() }

  /// With `clock: .manual`: moves the plugin's clock (`fh.clock/1` timers, FeatureKit's paced
  /// feedback) forward, and waits until what the timers due by then delivered has been applied.
  /// Then `receive` what they emitted. Nothing fires on its own: a paced feature is tested
  /// without waiting for real time.
  public func advance(by duration: Duration) async {
    store.advanceClock(by: duration)
    let bound = timeout
    let store = self.store
    _ = await offPool { store.waitUntilIdle(timeout: bound) }
  }

  /// Timers scheduled on the plugin's clock that have not fired.
  public var pendingTimers: Int { store.pendingTimers }

  /// Effects the plugin reports as in flight.
  public var effectsInFlight: Int { store.effectsRunning }

  /// What the plugin logged so far (and what the store logged about it), in order.
  public var logs: [(level: LogLevel, message: String)] { log.logs }

  /// Every action the store applied or the plugin refused so far, in order, with its source.
  public var history: [AppliedAction] {
    log.entries.map { entry in
      AppliedAction(action: entry.action, source: entry.source, changed: entry.changed, refused: entry.rejection != nil)
    }
  }
}
