import FeatureTesting
import Foundation
import Testing

/// A plugin that fails in each way a native plugin can, run by the real `host` in a worker
/// process under a named session: after each failure the host says what happened in one line,
/// goes on, other features still run, and the session's journal restores and replays.
@Suite("A faulty plugin under a session, through the CLI")
struct WorkerFaultCLITests {
  /// A failure the faults fixture (a tally: `add amount=N`, state {"pongs","total"}) is made to
  /// show, and what the host says of it.
  struct Fault: Sendable, CustomTestStringConvertible {
    let name: String
    /// Typed when the state's total is 2, to bring the failure about.
    let input: String
    /// The `--config` values of the run, besides the one-shot marker.
    var config: [String] = []
    /// A line of stderr the failure must produce.
    let message: String
    /// Whether the worker was lost, and so restarted.
    var restarts = true
    /// The total after `input` and `add amount=3`: the state the host carries on with.
    var total = 5
    var testDescription: String { name }
  }

  static let faults: [Fault] = [
    Fault(
      name: "segfault in dispatch", input: "segv",
      message: #"error: tally crashed (signal 11, Segmentation fault) while applying {"type":"segv"}"#),
    Fault(
      name: "abort()", input: "abort",
      message: #"error: tally crashed (signal 6, Aborted) while applying {"type":"abort"}"#),
    Fault(
      name: "exit(0)", input: "exit", message: #"error: tally exited with status 0 while applying {"type":"exit"}"#),
    Fault(
      name: "hang in dispatch", input: "hang",
      message: #"error: tally did not answer dispatch within 1 s while applying {"type":"hang"}"#),
    Fault(
      name: "an emitted action that is not JSON", input: "garbage", message: #"{"type":"pong","#, restarts: false),
    Fault(
      name: "segfault in render", input: "add amount=9\nadd amount=2\n:view", config: ["fault_in=render"],
      message: "error: tally crashed (signal 11, Segmentation fault) during render", total: 16),
    Fault(
      name: "segfault in snapshot", input: "add amount=9\nadd amount=2\n:state", config: ["fault_in=snapshot"],
      message: "error: tally crashed (signal 11, Segmentation fault) during snapshot", total: 16),
    Fault(
      name: "segfault in restore", input: ":load STATE13", config: ["fault_in=restore"],
      message: "error: tally crashed (signal 11, Segmentation fault) during restore"),
  ]

  /// A plugin folder holding the faults fixture as `tally`, and the folders a run keeps its
  /// session and registry in.
  struct Setup {
    let plugins: String
    let environment: [String: String]
    let folder: String

    init() throws {
      plugins = try FixturePlugin.temporaryFolder()
      try FileManager.default.copyItem(
        atPath: try FixturePlugin.path(["FIXTURE_TALLY", "FIXTURE_FAULTS"]), toPath: "\(plugins)/libtally.so")
      folder = try FixturePlugin.temporaryFolder()
      environment = ["XDG_STATE_HOME": "\(folder)/state", "XDG_CACHE_HOME": "\(folder)/cache"]
    }

    var journal: String { "\(folder)/state/featurehost/s.jsonl" }

    func host(_ arguments: [String]) throws -> LiveHost {
      try LiveHost(["--plugins", plugins] + arguments, environment: environment)
    }
  }

  @Test("after a fault the host goes on, other features run, and the journal restores and replays", arguments: faults)
  func aFaultCostsOnlyTheCallItHappenedIn(_ fault: Fault) async throws {
    let setup = try Setup()
    // The marker makes each fault fire once: the restarted worker carries on. It exists (empty)
    // before the run: a sandbox grants a declared file only when it is there.
    #expect(FileManager.default.createFile(atPath: "\(setup.folder)/fired", contents: nil))
    let config = (fault.config + ["fault_once=\(setup.folder)/fired"]).flatMap { ["--config", $0] }
    let state13 = "\(setup.folder)/13.json"
    try #"{"pongs":0,"total":13}"#.write(toFile: state13, atomically: true, encoding: .utf8)
    let host = try setup.host(["run", "tally", "--session", "s", "--call-timeout", "1"] + config)
    // given a session at total 2
    try host.send("add amount=2\n:state\n", thenReadThrough: #"{"pongs":0,"total":2}"#)
    // when the plugin fails
    host.send(fault.input.replacingOccurrences(of: "STATE13", with: state13) + "\n")
    // then the host says so in one line
    var errors = try host.waitForErrors(containing: fault.message)
    if fault.restarts { errors = try host.waitForErrors(containing: "note: tally restarted at seq") }
    #expect(!errors.contains("Backtrac"), "\(errors)")
    // and the session goes on
    try host.send("add amount=3\n:state\n", thenReadThrough: "{\"pongs\":0,\"total\":\(fault.total)}")
    // and the other features still run
    try host.send(":open counter\nincrement\n:state\n", thenReadThrough: #"{"clicks":1,"count":1}"#)
    try host.send(":back\n:state\n", thenReadThrough: "{\"pongs\":0,\"total\":\(fault.total)}")
    #expect(host.quit() == 0)
    // and the journal restores
    let again = try setup.host(["run", "tally", "--session", "s"] + config)
    try again.send(":state\n", thenReadThrough: "{\"pongs\":0,\"total\":\(fault.total)}")
    #expect(again.quit() == 0)
    // and replays
    let replay = try await HostProcess.run(
      ["--plugins", setup.plugins, "replay", setup.journal], environment: setup.environment)
    #expect(replay.status == 0, "\(replay.stderr)")
    if fault.restarts {
      #expect(try String(contentsOfFile: setup.journal, encoding: .utf8).contains(#""crash":"#))
    }
  }

  @Test func aFeatureThatCrashesThreeTimesInAMinuteIsClosedAndTheRunExits1AfterTheLastView() async throws {
    let setup = try Setup()
    let host = try setup.host(["run", "tally", "--session", "s"])
    try host.send("add amount=2\n:state\n", thenReadThrough: #"{"pongs":0,"total":2}"#)
    for _ in 1...3 { host.send("segv\n") }
    try host.waitForErrors(containing: "error: tally crashed 3 times within 60 s; it is closed")
    // The run ends by itself, with status 1, after drawing the last view it had, though stdin
    // stays open and nothing more comes.
    let output = try host.read(through: "total: 2")
    #expect(output.hasSuffix("Tally\n  "), "\(output)")
    #expect(host.waitForExit() == 1)
    #expect(!host.errors.contains("Backtrac"))
    // The journal restores and replays as it was: the crashing actions were never applied.
    let again = try setup.host(["run", "tally", "--session", "s"])
    try again.send(":state\n", thenReadThrough: #"{"pongs":0,"total":2}"#)
    #expect(again.quit() == 0)
    let replay = try await HostProcess.run(
      ["--plugins", setup.plugins, "replay", setup.journal], environment: setup.environment)
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stderr.contains(#"while applying {"type":"segv"}"#), "\(replay.stderr)")
  }

  @Test func aReplayThatCrashesThePluginIsAnErrorNamingTheSeqNotACrashOfTheHost() async throws {
    // given a session that reached 13 with a tally that has no faults
    let setup = try Setup()
    let plain = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(atPath: try FixturePlugin.path(["FIXTURE_TALLY"]), toPath: "\(plain)/libtally.so")
    let host = try LiveHost(
      ["--plugins", plain, "run", "tally", "--session", "s"], environment: setup.environment)
    host.send("add amount=9\nadd amount=4\nadd amount=1\n")
    #expect(host.quit() == 0)
    // when it is replayed with the build that segfaults drawing 13
    let replay = try await HostProcess.run(
      ["--plugins", setup.plugins, "replay", setup.journal], environment: setup.environment)
    // then the replay fails in one line naming the seq, and the host did not crash
    #expect(replay.status == 1, "\(replay.stderr)")
    #expect(
      replay.stderr.contains("seq 3: tally could not render: feature 'tally' crashed (signal 11"), "\(replay.stderr)")
    #expect(!replay.stderr.contains("Backtrac"), "\(replay.stderr)")
    // and in process the same replay would have taken the host down: isolation is the default
    let inProcess = try await HostProcess.run(
      ["--plugins", setup.plugins, "replay", "--isolation", "none", setup.journal],
      environment: setup.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 })
    #expect(inProcess.status == 139, "\(inProcess.stderr)")
  }
}
