import FeatureJSON
import Foundation
import HostKit
import Synchronization
import Testing

/// Runs a flow of real plugins through HostKit's real `Coordinator`, exhaustively, from Swift
/// Testing tests: actions, steps, navigation, time and each feature's state, as TCA's TestStore
/// tests navigation, over real `.so` files.
///
///     let flow = try await FlowTestStore(plugins: ["Home", "Counter"])
///     await flow.send("pick entry=counter", assert: ["entries": ..., "picked": "counter"])
///     await flow.receive(step: "featurePicked", from: "home", stack: ["home", "counter"])
///     await flow.send("increment", assert: ["count": 1, "clicks": 1])
///     await flow.back(stack: ["home"])
///     await flow.finish()
///
/// - `send` goes to the focused feature (or the one named `to:`), waits until it is applied and
///   the navigation it caused is done, and checks that feature's state right after it.
/// - `receive` takes the next action a feature emitted (an effect's result, a feedback), and
///   `receive(step:)` the next navigation step, with the stack the flow made of it. Each feature's
///   emissions come in its own order; between features there is no order.
/// - `open`, `back` and `focus` are the host's `:open`, `:back` and `:focus`; each asserts the
///   stack after it and, for a pop, the effects it cancelled.
/// - Every feature runs on a manual clock: `advance(by:)` moves all of them at once.
/// - `finish` waits for the flow to settle, fails on anything not received and on effects still
///   in flight, and stops every feature. A store released without `finish` fails the test.
///
/// Exhaustive by default: a state change, a navigation, a cancelled effect or an emission the test
/// does not assert fails it, at the caller's line, saying what, why and how to fix it.
public final class FlowTestStore: Sendable {
  public typealias Exhaustivity = FeatureTestStore.Exhaustivity

  public let flow: Flow
  public let plugins: [LoadedPlugin]
  public let exhaustivity: Exhaustivity
  /// The bound on every wait.
  public let timeout: Duration

  private let coordinator: Coordinator
  let launcher: FlowLauncher
  private let location: SourceLocation
  private struct Progress {
    var userActions: [Int: Int] = [:]
    var finished = false
  }
  private let progress = Mutex(Progress())

  /// Loads `plugins`, and presents the start of `flow` through the real coordinator.
  ///
  /// - Parameters:
  ///   - flow: `.main` (the home menu; needs `"Home"` among the plugins), `.file(path)`, or
  ///     `.json(text)`; checked as `host run --flow` checks it.
  ///   - plugins: product names of this package (`"Counter"`) or paths, Swift or C, each with
  ///     the config its features get (`.plugin("Kittens", config: [...])`). The home menu gets the
  ///     entries the CLI gives it unless a config is given.
  ///   - instances: where each instance runs (`.inProcess`, or in a worker process).
  /// - Throws: `PluginLoadError` for a library that does not load, `HostError` for a flow that
  ///   does not parse or names what no plugin provides, or a start feature that cannot launch.
  public init(
    flow source: FlowSource = .main, plugins libraries: [FlowPlugin], exhaustivity: Exhaustivity = .on,
    timeout: Duration = RunSettingCatalogue.settleTimeout.defaultValue,
    maxFeedbackSteps: Int = RunSettingCatalogue.maxFeedbackSteps.defaultValue, instances: InstanceFactory = .inProcess,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async throws {
    location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    var plugins: [LoadedPlugin] = []
    for library in libraries { plugins.append(try PluginLoader.load(library.path)) }
    var configs: [String: String] = [:]
    for (library, plugin) in zip(libraries, plugins) {
      let config = library.config ?? (plugin.id == HomeMenuConfig.id ? HomeMenuConfig.config(offering: plugins) : [:])
      configs[plugin.id] = config.serialized()
    }
    let flow = try source.load(for: plugins)
    self.flow = flow
    self.plugins = plugins
    self.exhaustivity = exhaustivity
    self.timeout = timeout
    let launcher = FlowLauncher(
      settings: FlowLauncher.Settings(
        configs: configs, maxFeedbackSteps: maxFeedbackSteps, instances: instances, timeout: timeout))
    let coordinator = Coordinator(
      flow: flow, plugins: plugins.map(PluginRecord.init), launcher: launcher, logsNavigation: false)
    launcher.locked { launcher.coordinator = coordinator }
    self.launcher = launcher
    self.coordinator = coordinator
    try await offPool { () -> Result<Void, HostError> in
      do throws(HostError) {
        try coordinator.start()
        return .success(())
      } catch {
        coordinator.stopAll()
        return .failure(error)
      }
    }.get()
  }

  deinit {
    coordinator.stopAll()
    if !progress.withLock({ $0.finished }) { FeatureTestStore.failForgottenFinish("FlowTestStore", at: location) }
  }

  // MARK: - Looking

  /// The navigation stack now, bottom frame first.
  public var stack: [FlowFrame] {
    coordinator.flush()
    return launcher.locked { launcher.stack }
  }

  /// The id of the feature input goes to.
  public var focused: String? { coordinator.top?.focus.id }

  /// The state of the topmost live feature `id` (or of the focused one), as its snapshot says.
  public func state(of id: String? = nil) throws -> JSONValue {
    guard let feature = feature(id) else {
      throw HostError("no live feature '\(id ?? "(focused)")'", help: "shown now: \(stack.line)")
    }
    return try JSONValue.parse(try feature.store.state())
  }

  /// The view of the topmost live feature `id` (or of the focused one).
  public func view(of id: String? = nil) throws -> String {
    guard let feature = feature(id) else {
      throw HostError("no live feature '\(id ?? "(focused)")'", help: "shown now: \(stack.line)")
    }
    return try feature.store.view()
  }

  /// Timers waiting on the manual clock, over every live feature.
  public var pendingTimers: Int { coordinator.all.reduce(0) { $0 + $1.store.pendingTimers } }

  private func feature(_ id: String?) -> PresentedFeature? {
    guard let id else { return coordinator.top?.focus }
    return coordinator.all.last { $0.id == id }
  }

  // MARK: - Sending

  /// Sends `action` to the focused feature (or the topmost live feature `to`), as a person types
  /// it, waits until it is applied and the navigation it caused is done, and checks the feature's
  /// state right after it.
  ///
  /// Exhaustive: fails if emissions already arrived that were not received, or if the state
  /// changed and neither `assert` nor `check` says how.
  public func send(
    _ action: TestAction, to id: String? = nil, assert expected: ExpectedState? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ check: ((JSONValue) throws -> Void)? = nil
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    guard let feature = feature(id) else {
      fail(
        "Cannot send '\(action.label)' to \(id ?? "the focused feature"): it is not presented",
        why: "the stack is \(stack.line)", help: "send to a feature on the stack, or navigate to it first",
        at: location)
      return
    }
    let json: String
    switch action.json(manifest: feature.plugin.manifest) {
    case .success(let text):
      json = text
    case .failure(let error):
      fail(
        "Cannot send '\(action.label)' to \(feature.id)", why: error.message,
        help: error.help ?? "write a typed line its catalogue knows, or JSON text", at: location)
      return
    }
    checkNothingWaiting(before: "sending \(json) to \(feature.id)", at: location)
    let number = progress.withLock { progress in
      progress.userActions[feature.number, default: 0] += 1
      return progress.userActions[feature.number] ?? 0
    }
    guard let record = launcher.all.first(where: { $0.feature === feature }) else { return }
    feature.store.send(json, source: .user)
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    let launcher = self.launcher
    let (entry, pause) = await offPool { () -> (ActionLog.Entry?, HostError?) in
      let result = launcher.waitForUserAction(number, of: record, until: deadline)
      launcher.waitUntilIdle()
      return result
    }
    guard let entry else {
      fail(
        "\(json) was not applied by \(feature.id)\(pause == nil ? " within \(timeout)" : "")",
        why: pause?.message ?? "its store is still busy with earlier actions",
        help: "a feedback loop may not settle; raise timeout: or maxFeedbackSteps:, or fix the feedback",
        at: location)
      return
    }
    FeatureTestStore.checkApplied(
      entry, refused: "\(feature.id) refused \(entry.action)",
      help: "fix the action; a flow test sends actions the feature accepts",
      named: "sending \(entry.action) to \(feature.id)", expected: expected, check: check,
      exhaustivity: exhaustivity, at: location)
  }

  // MARK: - Receiving

  /// Waits for the next action a feature emitted (from `from`, or from any), checks it matches
  /// `expected`, and checks that feature's state right after it.
  ///
  /// Non-exhaustive stores skip emissions that do not match until one does.
  public func receive(
    _ expected: ExpectedAction, from id: String? = nil, assert state: ExpectedState? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ check: ((JSONValue) throws -> Void)? = nil
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let what = "Expected to receive \(expected.label)\(id.map { " from \($0)" } ?? "")"
    guard
      let (record, emission) = await next(
        what, expected, from: id, at: location,
        matching: { emission in
          guard case .action(let entry) = emission else { return false }
          return expected.matches(entry.action)
        })
    else { return }
    guard case .action(let entry) = emission else { return }
    FeatureTestStore.checkApplied(
      entry, refused: "\(record.id) refused its own emitted action \(entry.action)",
      help: "an effect or feedback must emit actions the reducer accepts",
      named: "receiving \(entry.action) in \(record.id)", expected: state, check: check,
      exhaustivity: exhaustivity, at: location)
  }

  /// Waits for the next navigation step a feature emitted (`"featurePicked"` matches the step's
  /// name, JSON or a literal the whole step), and checks what the flow made of it: the stack
  /// after it, and the effects of the features it popped that were cancelled.
  ///
  /// Exhaustive: a step that moved the stack needs `stack:`; a pop that cancelled effects needs
  /// `cancelled:`; a step the flow ignored needs `ignored: true`.
  public func receive(
    step expected: ExpectedAction, from id: String? = nil, stack: [FlowFrame]? = nil,
    cancelled: [String: Int]? = nil, ignored: Bool = false,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let what = "Expected to receive \(expected.stepLabel)\(id.map { " from \($0)" } ?? "")"
    guard
      let (record, emission) = await next(
        what, expected, from: id, at: location,
        matching: { emission in
          guard case .step(let json, _) = emission else { return false }
          return expected.matches(json, key: "step")
        })
    else { return }
    guard case .step(let json, _) = emission else { return }
    let coordinator = self.coordinator
    await offPool { coordinator.flush() }
    let outcome = launcher.locked { () -> FlowLauncher.Outcome? in
      for case .step(let recorded, let outcome) in record.emitted where recorded == json {
        if let outcome { return outcome }
      }
      return nil
    }
    checkNavigation(
      outcome ?? .ignored("the coordinator did not handle it"), after: "step \(json) from \(record.id)",
      stack: stack, cancelled: cancelled, ignored: ignored, at: location)
  }

  /// Waits for the settled flow and marks every emission so far received.
  public func skipReceivedActions() async {
    let launcher = self.launcher
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    _ = await offPool { launcher.waitUntilSettled(until: deadline) }
    launcher.locked { for record in launcher.allLocked { record.consumed = record.emitted.count } }
  }

  private func next(
    _ what: String, _ expected: ExpectedAction, from id: String?, at location: SourceLocation,
    matching: @escaping @Sendable (FlowLauncher.Emission) -> Bool
  ) async -> (FlowLauncher.Record, FlowLauncher.Emission)? {
    if case .invalid(let error) = expected.match {
      fail("Cannot receive: \(error.message)", why: "the expectation itself is broken", help: "fix it", at: location)
      return nil
    }
    let launcher = self.launcher
    let exhaustive = exhaustivity == .on
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    let arrival = await offPool {
      launcher.waitForEmission(from: id, exhaustive: exhaustive, until: deadline, matches: matching)
    }
    switch arrival {
    case .found(let record, _, let emission):
      return (record, emission)
    case .mismatch(let heads):
      fail(
        "\(what), but the next emitted \(heads.count == 1 ? "was" : "were"):\n"
          + heads.map { "  \($0.id): \($0.emission.text)" }.joined(separator: "\n"),
        why: "each feature's actions and steps are received in the order it emitted them",
        help: "receive them in that order (name the feature with from:), or fix the feature", at: location)
    case .settled(let timers, let pauses):
      let why =
        pauses.last.map { "the runaway guard paused a feature: \($0.message)" }
        ?? "the flow settled: nothing queued, no effect in flight"
        + (timers > 0 ? " but \(FeatureTestStore.count(timers, "timer")) on the manual clock" : "")
      fail(
        "\(what), but nothing more was emitted", why: why,
        help: timers > 0
          ? "advance(by:) to fire the timers first" : "remove this receive, or check the action that should cause it",
        at: location)
    case .timedOut(let effects):
      fail(
        "\(what), but nothing arrived within \(timeout)",
        why: "\(FeatureTestStore.count(effects, "effect")) still in flight",
        help: "point the effect at a fake that answers (config), or raise timeout:", at: location)
    }
    return nil
  }

  // MARK: - Navigating

  /// `:open ID`: pushes feature `id` over the stack, and checks the stack after it.
  public func open(
    _ id: String, stack: [FlowFrame]? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await command(":open \(id)", stack: stack, cancelled: nil, at: location) { coordinator throws(HostError) in
      try coordinator.open(id)
    }
  }

  /// `:back`: pops the top frame (stopping its features, cancelling their effects), and checks
  /// the stack after it and, by feature id, the effects that were in flight when it was popped.
  public func back(
    stack: [FlowFrame]? = nil, cancelled: [String: Int]? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await command(":back", stack: stack, cancelled: cancelled, at: location) { coordinator throws(HostError) in
      try coordinator.back()
    }
  }

  /// `:focus ID`: sends input to another feature of the top frame, and checks the stack after it.
  public func focus(
    _ id: String, stack: [FlowFrame]? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await command(":focus \(id)", stack: stack, cancelled: nil, at: location) { coordinator throws(HostError) in
      try coordinator.focus(id)
    }
  }

  private func command(
    _ name: String, stack: [FlowFrame]?, cancelled: [String: Int]?, at location: SourceLocation,
    _ body: @escaping @Sendable (Coordinator) throws(HostError) -> Void
  ) async {
    checkNothingWaiting(before: name, at: location)
    let coordinator = self.coordinator
    let launcher = self.launcher
    launcher.forgetCommand()
    let result = await offPool { () -> Result<Void, HostError> in
      do throws(HostError) {
        try body(coordinator)
        launcher.waitUntilIdle()
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    if case .failure(let error) = result {
      fail(
        "\(name) failed: \(error.message)", why: "the coordinator refused it; the stack is \(self.stack.line)",
        help: error.help ?? "navigate only where the stack allows", at: location)
      return
    }
    guard let (_, outcome) = launcher.locked({ launcher.lastCommand }) else { return }
    checkNavigation(outcome, after: name, stack: stack, cancelled: cancelled, ignored: false, at: location)
  }

  // MARK: - Time

  /// Moves the manual clock of every live feature forward by `duration`: the timers due by then
  /// fire, in order, and what they deliver is applied (with the navigation it causes). Then
  /// `receive` what they emitted.
  public func advance(by duration: Duration) async {
    let coordinator = self.coordinator
    let launcher = self.launcher
    await offPool {
      for feature in coordinator.all { feature.store.advanceClock(by: duration) }
      launcher.waitUntilIdle()
    }
  }

  // MARK: - The end

  /// Ends the test: waits (up to `timeout`) for the flow to settle; fails on an emission never
  /// received, or an effect still in flight (a timer on the manual clock included); then stops
  /// every feature, and fails if one emitted after it stopped. A non-exhaustive store only stops.
  public func finish(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    progress.withLock { $0.finished = true }
    let launcher = self.launcher
    let coordinator = self.coordinator
    if exhaustivity == .on {
      let deadline = Date(timeIntervalSinceNow: timeout.seconds)
      let settled = await offPool { launcher.waitUntilSettled(until: deadline) }
      let waiting = launcher.waiting
      if !waiting.isEmpty {
        fail(
          "\(FeatureTestStore.count(waiting.count, "emission")) never received:\n"
            + waiting.map { "  \($0.0): \($0.1.text)" }.joined(separator: "\n"),
          why: "an exhaustive flow test asserts every action and step each feature emits",
          help: "add receive(...) or receive(step:...) for each, call skipReceivedActions(), or use exhaustivity: .off",
          at: location)
      }
      switch settled {
      case .settled(let timers) where timers > 0:
        fail(
          "\(FeatureTestStore.count(timers, "timer")) still waiting on the manual clock at the end of the test",
          why: "an exhaustive test ends only once every effect has finished",
          help:
            "advance(by:) and receive what they deliver, pop the feature (back(cancelled:)), or use exhaustivity: .off",
          at: location)
      case .settled:
        break
      case .timedOut(let effects):
        fail(
          "\(FeatureTestStore.count(effects, "effect")) still in flight at the end of the test (waited \(timeout))",
          why: "an exhaustive test ends only once every effect has finished",
          help: "receive what they emit, pop their feature (back(cancelled:)), or use exhaustivity: .off",
          at: location)
      }
    }
    let late = await offPool { () -> [(String, Int)] in
      coordinator.stopAll()
      return launcher.all.map { ($0.id, $0.feature.store.stop().late) }.filter { $0.1 > 0 }
    }
    for (id, count) in late {
      fail(
        "\(id) emitted \(FeatureTestStore.count(count, "action")) after stop returned",
        why: "the ABI says a plugin calls nothing on its host after stop",
        help: "cancel every effect in stop and wait for them before returning", at: location)
    }
  }

  // MARK: - Checks

  private func checkNothingWaiting(before what: String, at location: SourceLocation) {
    guard exhaustivity == .on else { return }
    let waiting = launcher.waiting
    guard !waiting.isEmpty else { return }
    fail(
      "\(what.prefix(1).uppercased() + what.dropFirst()) while \(FeatureTestStore.count(waiting.count, "emission")) had not been received:\n"
        + waiting.map { "  \($0.0): \($0.1.text)" }.joined(separator: "\n"),
      why: "an exhaustive test asserts every action and step the features emit, in each feature's order",
      help: "call receive(...) or receive(step:...) for each first, or skipReceivedActions()", at: location)
  }

  func fail(_ what: String, why: String, help: String, at location: SourceLocation) {
    FeatureTestStore.fail(what, why: why, help: help, at: location)
  }
}
