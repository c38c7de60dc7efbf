import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

/// A launcher for tests: stores observed by an `EventRecorder`, steps routed to the coordinator,
/// every log line and show recorded.
final class RecordingLauncher: FeatureLauncher, @unchecked Sendable {
  let lines = Mutex<[String]>([])
  let shown = Mutex<[[String]]>([])
  var coordinator: Coordinator?

  func record(step: String, frames: [(features: [PresentedFeature], focus: Int)]) {}

  func launch(_ record: PluginRecord, number: Int, journal: String?) throws(HostError) -> PresentedFeature {
    let plugin = try record.load()
    final class Holder: @unchecked Sendable { weak var feature: PresentedFeature? }
    let holder = Holder()
    // Levels paces its steps; with no interval the test needs no clock. Others take no settings.
    let config = plugin.id == "levels" ? #"{"interval":0}"# : "{}"
    let store = try Store(plugin: plugin, config: config) { [weak self] event in
      if case .step(let json) = event, let feature = holder.feature {
        self?.coordinator?.receive(step: json, from: feature)
      }
    }
    let feature = PresentedFeature(plugin: plugin, store: store, number: number)
    holder.feature = feature
    try store.start()
    return feature
  }

  func retire(_ feature: PresentedFeature) { feature.store.stop() }

  func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {
    shown.withLock { $0.append(features.map(\.id)) }
  }

  func log(_ line: String, isNote: Bool) { lines.withLock { $0.append(line) } }
}

@Suite("Navigation: flows, steps and the coordinator")
struct NavigationTests {
  static func plugins() throws -> [PluginRecord] {
    [
      try PluginLoader.load(try FixturePlugin.path()), try PluginLoader.load(CounterLibrary.path),
      try PluginLoader.load(PluginPaths.library("Levels")),
    ].map(PluginRecord.init)
  }

  func coordinator(_ flow: Flow, logs: Bool = true) throws -> (Coordinator, RecordingLauncher) {
    let launcher = RecordingLauncher()
    let coordinator = Coordinator(flow: flow, plugins: try Self.plugins(), launcher: launcher, logsNavigation: logs)
    launcher.coordinator = coordinator
    return (coordinator, launcher)
  }

  @Test func aStepFromAFeatureThatIsCoveredIsIgnoredAndLogged() throws {
    // given the fixture, whose step "go" pushes the counter over it
    let flow = Flow(name: "test", start: .push(.feature("fixture")), rules: ["go": .push(.feature("counter"))])
    let (coordinator, launcher) = try coordinator(flow)
    try coordinator.start()
    let fixture = try #require(coordinator.top?.focus)
    fixture.store.send(#"{"type":"step","name":"go"}"#, source: .user)
    fixture.store.waitUntilIdle(timeout: .seconds(10))
    coordinator.flush()
    #expect(coordinator.top?.features.map(\.id) == ["counter"])
    // when the covered fixture emits the step again
    fixture.store.send(#"{"type":"step","name":"go"}"#, source: .effect)
    fixture.store.waitUntilIdle(timeout: .seconds(10))
    coordinator.flush()
    // then nothing moves, and the log says why
    #expect(coordinator.top?.features.map(\.id) == ["counter"])
    #expect(coordinator.all.map(\.id) == ["fixture", "counter"])
    #expect(launcher.lines.withLock { $0 }.last == "ignored step=go from=fixture: it is not presented")
    coordinator.stopAll()
  }

  @Test func backStopsThePoppedFeatureAndRevealsTheCoveredOneWithItsState() throws {
    let (coordinator, launcher) = try coordinator(Flow.single("counter"))
    try coordinator.start()
    let counter = try #require(coordinator.top?.focus)
    counter.store.send(#"{"type":"increment"}"#, source: .user)
    try coordinator.open("levels")
    let levels = try #require(coordinator.top?.focus)
    try coordinator.back()
    #expect(coordinator.top?.focus === counter)
    #expect(try counter.store.state() == #"{"clicks":1,"count":1}"#)
    #expect(levels.store.waitUntilSettled(timeout: .seconds(1)) == .stopped)
    #expect(launcher.shown.withLock { $0 } == [["counter"], ["levels"], ["counter"]])
    #expect(
      launcher.lines.withLock { $0 } == [
        "will navigate flow=counter step=start", "did navigate flow=counter step=start to=counter",
        "will navigate flow=counter step=:open levels", "did navigate flow=counter step=:open levels to=levels",
        "will navigate flow=counter step=:back", "did navigate flow=counter step=:back to=counter",
      ])
    #expect(throws: HostError.self) { try coordinator.back() }
    coordinator.stopAll()
  }

  @Test func presentShowsSeveralFeaturesAndFocusPicksWhereInputGoes() throws {
    let flow = Flow(
      name: "tabs", start: .push(.feature("fixture")),
      rules: ["go": .present([.feature("counter"), .feature("levels")])])
    let (coordinator, launcher) = try coordinator(flow, logs: false)
    try coordinator.start()
    try #require(coordinator.top?.focus).store.send(#"{"type":"step","name":"go"}"#, source: .user)
    try #require(coordinator.top?.focus).store.waitUntilIdle(timeout: .seconds(10))
    coordinator.flush()
    #expect(coordinator.top?.features.map(\.id) == ["counter", "levels"], "\(launcher.lines.withLock { $0 })")
    #expect(coordinator.top?.focus.id == "counter")
    try coordinator.focus("levels")
    #expect(coordinator.top?.focus.id == "levels")
    #expect(throws: HostError.self) { try coordinator.focus("kittens") }
    coordinator.stopAll()
  }

  static let badFlows: [TextCase] = [
    TextCase(id: "not-json", text: "{\n  \"flow\": \"x\",\n  oops\n}", expected: "flow 'f.json' line 3 column 3"),
    TextCase(
      id: "unknown-feature", text: "{\"flow\": \"x\",\n \"start\": {\"push\": \"countr\"}}",
      expected: "flow 'f.json' line 2 column 20: unknown feature 'countr'"),
    TextCase(
      id: "unknown-step",
      text: "{\"flow\": \"x\", \"start\": {\"push\": \"counter\"},\n \"on\": {\"teleport\": {\"pop\": true}}}",
      expected: "flow 'f.json' line 2 column 9: unknown step 'teleport'"),
    TextCase(
      id: "unknown-verb", text: "{\"flow\": \"x\", \"start\": {\"jump\": \"counter\"}}",
      expected: "unknown navigation 'jump'"),
    TextCase(
      id: "start-pops", text: "{\"flow\": \"x\", \"start\": {\"pop\": true}}", expected: "start must push or present"),
    TextCase(id: "no-name", text: "{\"start\": {\"push\": \"counter\"}}", expected: "needs a string \"flow\""),
  ]

  @Test("a bad flow is refused when loaded, naming file and position", arguments: badFlows)
  func badFlowIsRefused(_ bad: TextCase) {
    let error = #expect(throws: HostError.self) {
      try Flow.load(bad.text, file: "f.json", features: ["counter", "levels"], steps: ["go"])
    }
    #expect(error?.message.contains(bad.expected) == true, "\(error?.message ?? "")")
  }

  @Test func theMainFlowLoadsAgainstTheShippedPlugins() throws {
    let flow = try Flow.load(Flow.mainJSON, file: "main", features: ["home", "counter"], steps: ["featurePicked"])
    #expect(flow.start == .push(.feature("home")))
    #expect(flow.rules == ["featurePicked": .push(.field("feature"))])
  }
}

@Suite("Navigation in the terminal")
struct NavigationCLITests {
  @Test func homeToCounterBackToLevelsBack() async throws {
    let result = try await HostProcess.run(
      ["--log-navigation"],
      input: "pick entry=counter\nincrement\n:view\n:back\npick entry=levels\n:settle\n:state\n:back\n:quit\n",
      environment: ["LEVELS_INTERVAL": "0"])
    #expect(result.status == 0)
    #expect(
      result.stderr == """
        will navigate flow=main step=start
        did navigate flow=main step=start to=home
        will navigate flow=main step=featurePicked
        did navigate flow=main step=featurePicked to=counter
        will navigate flow=main step=:back
        did navigate flow=main step=:back to=home
        will navigate flow=main step=featurePicked
        did navigate flow=main step=featurePicked to=levels
        will navigate flow=main step=:back
        did navigate flow=main step=:back to=home

        """)
    let home = try #require(result.stdout.split(separator: "\n").first.map(String.init))
    #expect(home == "Counter")
    #expect(result.stdout.contains("Counter\n  count:  1\n  clicks: 1\nFeatureHost — pick a feature\n"))
    #expect(result.stdout.contains("{\"left\":15,\"right\":15}\nFeatureHost — pick a feature\n"))
  }

  @Test func aFlowFileNamingAnUnknownFeatureIsRefused() async throws {
    let folder = try FixturePlugin.temporaryFolder()
    let file = "\(folder)/flow.json"
    try "{\"flow\": \"mine\",\n \"start\": {\"present\": [\"counter\", \"levls\"]}}".write(
      toFile: file, atomically: true, encoding: .utf8)
    let result = try await HostProcess.run(["run", "--flow", file])
    #expect(result.status == 1)
    #expect(result.stderr.contains("error: flow '\(file)' line 2 column 35: unknown feature 'levls'"))
    #expect(result.stderr.contains("help: did you mean 'levels'?"))
  }

  @Test func aFlowPresentsTwoFeaturesUnderHeadingsAndFocusRoutesInput() async throws {
    let folder = try FixturePlugin.temporaryFolder()
    let file = "\(folder)/flow.json"
    try #"{"flow": "pair", "start": {"present": ["counter", "levels"]}}"#.write(
      toFile: file, atomically: true, encoding: .utf8)
    let result = try await HostProcess.run(
      ["run", "--flow", file], input: "increment\n:focus levels\nset left=1 right=3\n:settle\n",
      environment: ["LEVELS_INTERVAL": "0"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(result.stdout.hasSuffix("── levels (focus) ──\n" + SettledLevels.view(at: 2, bar: 40)))
    #expect(result.stdout.contains("── counter ──\nCounter\n  count:  1\n  clicks: 1\n"))
  }

  @Test func aSessionRestoresWhereTheUserWasAndReplayShowsThePath() async throws {
    let state = try FixturePlugin.temporaryFolder()
    let environment = ["XDG_STATE_HOME": state]
    // given a session that went home -> counter, with two increments
    let first = try await HostProcess.run(
      ["--session", "nav"], input: "pick entry=counter\nincrement\nincrement\n", environment: environment)
    #expect(first.status == 0)
    // when it is run again
    let second = try await HostProcess.run(
      ["--session", "nav", "--log-navigation"], input: ":state\n:back\n:quit\n", environment: environment)
    // then it is back on the counter, over the home menu, with its count
    #expect(second.status == 0)
    #expect(second.stdout.hasPrefix("{\"clicks\":2,\"count\":2}\nFeatureHost — pick a feature\n"))
    #expect(
      second.stderr.hasPrefix(
        "note: restored session nav (home) at seq 2\ndid navigate flow=main step=restore to=counter\n"))
    // and replay walks the same path, ending on the home menu it went back to
    let navigation = "\(state)/featurehost/nav.d/navigation.jsonl"
    let replay = try await HostProcess.run(["replay", navigation], environment: environment)
    #expect(replay.status == 0)
    #expect(
      replay.stdout.hasPrefix(
        """
        did navigate flow=main step=start to=home
        did navigate flow=main step=featurePicked to=counter
        did navigate flow=main step=:back to=home
        FeatureHost — pick a feature

        """))
    let partial = try await HostProcess.run(["replay", navigation, "--to", "2"], environment: environment)
    #expect(partial.stdout.hasSuffix("Counter\n  count:  2\n  clicks: 2\n"))
    // and removing the session removes every journal it kept
    #expect(try await HostProcess.run(["sessions", "rm", "nav"], environment: environment).status == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: "\(state)/featurehost").isEmpty)
  }
}
