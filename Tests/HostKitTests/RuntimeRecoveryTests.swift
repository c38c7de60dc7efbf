import FeatureTesting
import Foundation
import HostKit
import Testing

/// What the runtime tells its front end when an instance is lost. Each test runs for every way of
/// losing an instance in `CrashSetup.all` (today a fault-injecting factory; a crashing worker
/// plugin is to join it), so the same lines are asserted whatever made the crash.
@Suite("Runtime recovery from a lost instance")
struct RuntimeRecoveryTests {
  /// A way to make instances that crash on the action `{"type":"boom"}` with signal 11.
  struct CrashSetup: CustomTestStringConvertible, Sendable {
    let id: String
    let instances: @Sendable () -> InstanceFactory
    var testDescription: String { id }

    static let all = [
      CrashSetup(id: "fault-injected-in-process") { FaultPlan.crashing(on: "boom").factory }
    ]
  }

  static let boom = #"{"type":"boom"}"#
  static let crashLine = #"counter crashed (signal 11, Segmentation fault) while applying {"type":"boom"}"#

  struct Harness {
    let runtime: SessionRuntime
    let sink: RecordingSink
    let reporter: RecordingReporter
    let state: String
  }

  static func harness(
    _ setup: CrashSetup, flow: Flow = .single("counter"), live: Bool = true, session: String? = nil,
    state: String? = nil
  ) throws -> Harness {
    let sink = RecordingSink()
    let reporter = RecordingReporter()
    let root = try state ?? FixturePlugin.temporaryFolder()
    var settings = RunSettings()
    settings.temporaryRoot = root
    settings.session = session
    settings.sessions = SessionDirectory(root: "\(root)/featurehost")
    settings.instances = setup.instances()
    let plugins = [try PluginLoader.load(CounterLibrary.path), try PluginLoader.load(PluginPaths.library("Levels"))]
    let runtime = SessionRuntime(
      plugins: plugins.map(PluginRecord.init), flow: flow, settings: settings,
      renderers: [LineRenderer(sink: sink, live: live)],
      reporter: reporter)
    return Harness(runtime: runtime, sink: sink, reporter: reporter, state: root)
  }

  /// A harness of the counter alone, its runtime opened (and closed again if opening fails).
  static func opened(_ setup: CrashSetup) throws -> Harness {
    let harness = try harness(setup)
    do {
      try harness.runtime.open()
    } catch {
      harness.runtime.close()
      throw error
    }
    return harness
  }

  @Test("a crash is one error line, a restart note, a redraw, and the session goes on", arguments: CrashSetup.all)
  func aCrashIsOneLineAndTheSessionGoesOn(_ setup: CrashSetup) throws {
    // given a live counter at 2
    let harness = try Self.opened(setup)
    let runtime = harness.runtime
    defer { runtime.close() }
    let counter = try #require(runtime.focused)
    try runtime.send("increment", to: counter)
    try runtime.send("increment", to: counter)
    runtime.settle()
    let before = try #require(runtime.view(of: counter))
    // when boom crashes it, and the user goes on typing
    try runtime.send(Self.boom, to: counter)
    runtime.settle()
    try runtime.send("increment", to: counter)
    runtime.settle()
    // then one error line, one note, the view at seq 3 drawn again, and the increment applied
    #expect(harness.reporter.errors.withLock { $0.map(\.message) } == [Self.crashLine])
    #expect(harness.reporter.errors.withLock { $0.first?.help } == nil)
    let notices = harness.reporter.notices.withLock { $0 }
    #expect(notices == [.restarted(feature: "counter", sequence: 3)])
    #expect(notices.first?.description == "counter restarted at seq 3")
    #expect(notices.first?.level == .note)
    #expect(harness.sink.writes.filter { $0 == before }.count == 2)
    #expect(try runtime.state(of: counter) == #"{"clicks":3,"count":3}"#)
    #expect(!runtime.hasEndedByClosing)
    // and the history holds no boom
    #expect(try runtime.history(of: counter).map(\.json).contains(Self.boom) == false)
  }

  @Test("a single feature closed after three crashes ends the run", arguments: CrashSetup.all)
  func aSingleFeatureClosedEndsTheRun(_ setup: CrashSetup) throws {
    // given a counter in a pipe
    let harness = try Self.harness(setup, live: false)
    let runtime = harness.runtime
    defer { runtime.close() }
    try runtime.open()
    let counter = try #require(runtime.focused)
    try runtime.send("increment", to: counter)
    // when it crashes three times in a row
    for _ in 0..<3 {
      try runtime.send(Self.boom, to: counter)
      _ = counter.store.waitUntilSettled(timeout: .seconds(10))
    }
    // then three crash lines, two restarts, and the closing error; the run has ended
    let errors = harness.reporter.errors.withLock { $0.map(\.message) }
    #expect(
      errors == [Self.crashLine, Self.crashLine, Self.crashLine, "counter crashed 3 times within 60 s; it is closed"])
    #expect(
      harness.reporter.notices.withLock { $0 } == [
        .restarted(feature: "counter", sequence: 2), .restarted(feature: "counter", sequence: 3),
      ])
    #expect(runtime.hasEndedByClosing)
    #expect(runtime.focused?.store.isClosed == true)
  }

  @Test("a feature closed in a flow goes back to the one before", arguments: CrashSetup.all)
  func aClosedFeatureInAFlowGoesBack(_ setup: CrashSetup) throws {
    // given levels opened over the counter
    let harness = try Self.opened(setup)
    let runtime = harness.runtime
    defer { runtime.close() }
    try runtime.open("levels")
    let levels = try #require(runtime.focused)
    #expect(levels.id == "levels")
    // when levels crashes three times
    for _ in 0..<3 {
      try runtime.send(Self.boom, to: levels)
      _ = levels.store.waitUntilSettled(timeout: .seconds(10))
    }
    runtime.waitForClosings()
    // then the counter is shown again, and the run goes on
    #expect(runtime.focused?.id == "counter")
    #expect(!runtime.hasEndedByClosing)
    #expect(harness.reporter.errors.withLock { $0.last?.message } == "levels crashed 3 times within 60 s; it is closed")
    let counter = try #require(runtime.focused)
    try runtime.send("increment", to: counter)
    #expect(try runtime.state(of: counter) == #"{"clicks":1,"count":1}"#)
  }

  @Test("a named session with crashes restores, and replays", arguments: CrashSetup.all)
  func aSessionWithCrashesRestoresAndReplays(_ setup: CrashSetup) async throws {
    // given a named session in which the counter crashed once
    let first = try Self.harness(setup, live: false, session: "demo")
    try first.runtime.open()
    let counter = try #require(first.runtime.focused)
    for line in ["increment", Self.boom, "increment"] { try first.runtime.send(line, to: counter) }
    first.runtime.finish(settling: true)
    first.runtime.close()
    let path = "\(first.state)/featurehost/demo.jsonl"
    #expect(try String(contentsOfFile: path, encoding: .utf8).contains(#""crash":"signal 11""#))
    // when it is restored by another run
    let second = try Self.harness(setup, live: false, session: "demo", state: first.state)
    defer { second.runtime.close() }
    try second.runtime.open()
    let restored = try #require(second.runtime.focused)
    // then it has the state and history the crash left
    #expect(try second.runtime.state(of: restored) == #"{"clicks":2,"count":2}"#)
    #expect(
      try second.runtime.history(of: restored).map(\.json) == [
        #"{"type":"created"}"#, #"{"type":"increment"}"#, #"{"type":"restored"}"#, #"{"type":"increment"}"#,
        #"{"type":"restored"}"#,
      ])
    // and `host replay` replays it, noting the crash
    let replay = try await HostProcess.run(["replay", path], environment: ["XDG_STATE_HOME": first.state])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stderr.contains(#"seq 2: counter was lost (signal 11) while applying {"type":"boom"}"#))
    // and `host sessions` counts the five applied actions above, not the crash line
    let sessions = try await HostProcess.run(["sessions"], environment: ["XDG_STATE_HOME": first.state])
    #expect(
      sessions.stdout.split(separator: " ", omittingEmptySubsequences: true).prefix(3) == ["demo", "counter", "5"])
  }

  @Test func ctrlCWhileACallIsStuckInterruptsItAndTheFeatureRestarts() throws {
    // given a live counter whose `hang` never returns by itself
    let setup = CrashSetup(id: "hanging") { FaultPlan(hangingOn: "hang").factory }
    let harness = try Self.opened(setup)
    let runtime = harness.runtime
    defer { runtime.close() }
    let counter = try #require(runtime.focused)
    // when nothing is stuck, there is nothing to interrupt
    #expect(runtime.interruptStuckCall(grace: .milliseconds(10)) == nil)
    // when the user's action hangs and Ctrl-C comes
    try runtime.send("increment", to: counter)
    try runtime.send(#"{"type":"hang"}"#, to: counter)
    #expect(runtime.interruptStuckCall(grace: .milliseconds(10)) == "counter")
    runtime.settle()
    // then it reads as a crash of that action, and the feature restarted
    #expect(
      harness.reporter.errors.withLock { $0.map(\.message) } == [
        #"counter crashed (signal 9, Killed) while applying {"type":"hang"}"#
      ])
    #expect(harness.reporter.notices.withLock { $0 } == [.restarted(feature: "counter", sequence: 2)])
    #expect(try runtime.state(of: counter) == #"{"clicks":1,"count":1}"#)
  }
}
