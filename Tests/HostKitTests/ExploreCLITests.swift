import FeatureTesting
import Foundation
import Testing

/// `host explore` through the built host: C fixtures that hide a bug behind a sequence are each
/// found, shrunk and written as a transcript `host check` fails on; a shipped feature explores
/// clean; bad input is a usage error.
@Suite("host explore")
struct ExploreCLITests {
  /// A tally fixture with one hidden bug, and what finding it looks like.
  struct HiddenBug: Sendable, CustomTestStringConvertible {
    let macro: String
    /// The kind the summary line names.
    let kind: String
    /// The fewest actions that show the bug.
    let shortest: Int
    var testDescription: String { macro }
  }

  static let bugs: [HiddenBug] = [
    HiddenBug(macro: "EXPLORE_RESTORE_CAP", kind: "(invariant)", shortest: 3),
    HiddenBug(macro: "EXPLORE_CLOCK", kind: "(determinism)", shortest: 1),
    HiddenBug(macro: "EXPLORE_CRASH_ORDER", kind: "(crash)", shortest: 2),
  ]

  /// A plugin folder holding `library` as libtally.so (or the build's own plugins), and private
  /// state and cache folders.
  struct Setup {
    let plugins: String
    let out: String
    let environment: [String: String]

    init(tally defines: [String]?) throws {
      plugins = try FixturePlugin.temporaryFolder()
      if let defines {
        try FileManager.default.copyItem(
          atPath: try FixturePlugin.path(["FIXTURE_TALLY"] + defines), toPath: "\(plugins)/libtally.so")
      }
      out = try FixturePlugin.temporaryFolder()
      let folder = try FixturePlugin.temporaryFolder()
      environment = ["XDG_STATE_HOME": "\(folder)/state", "XDG_CACHE_HOME": "\(folder)/cache"]
    }

    /// The first transcript exploring the tally wrote to `out`: its path and its text.
    func firstTranscript() throws -> (file: String, text: String) {
      let file = "\(out)/tally-explore-1.transcript"
      return (file, try String(contentsOfFile: file, encoding: .utf8))
    }

    func host(_ arguments: [String]) async throws -> HostProcess.Output {
      try await HostProcess.run(["--plugins", plugins] + arguments, environment: environment)
    }
  }

  /// The line `host explore` printed about the tally.
  static func summary(
    of explored: HostProcess.Output, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Substring {
    try #require(
      explored.stdout.split(separator: "\n").first { $0.hasPrefix("explore: tally: ") },
      "\(explored.stdout)\(explored.stderr)", sourceLocation: sourceLocation)
  }

  /// How many actions (not host commands) `transcript` types.
  static func actions(typedIn transcript: String) -> Int {
    transcript.split(separator: "\n").filter { $0.hasPrefix("> ") && !$0.hasPrefix("> :") }.count
  }

  @Test("a hidden bug is found within 10,000 steps, shrunk, and its transcript fails under host check", arguments: bugs)
  func aHiddenBugIsFoundShrunkAndReplayable(_ bug: HiddenBug) async throws {
    // given a tally hiding the bug
    let setup = try Setup(tally: [bug.macro])
    // when it is explored for at most 10,000 steps
    let explored = try await setup.host(
      ["explore", "tally", "--runs", "100", "--steps", "100", "--seed", "26", "--out", setup.out])
    // then it is found, named with its kind and seed
    #expect(explored.status == 1, "\(explored.stdout)\(explored.stderr)")
    let line = try Self.summary(of: explored)
    #expect(line.contains(bug.kind), "\(line)")
    #expect(line.hasSuffix("seed 26 (--seed 26 runs it again)"), "\(line)")
    // and shrunk to at most one action more than the shortest failing sequence
    let (file, transcript) = try setup.firstTranscript()
    let actions = Self.actions(typedIn: transcript)
    #expect(actions >= bug.shortest && actions <= bug.shortest + 1, "\(transcript)")
    #expect(line.contains("written to \(file)"), "\(line)")
    // and host check runs the transcript and fails on it
    let checked = try await setup.host(["check", file])
    #expect(checked.status == 1, "\(checked.stdout)\(checked.stderr)")
    #expect(checked.stdout.contains("fail \(file)"), "\(checked.stdout)")
    #expect(checked.stdout.contains("0 passed, 1 failed"), "\(checked.stdout)")
  }

  @Test("in process, a state its restore refuses is found beside the store, at the action that reached it")
  func inProcessARefusedStateIsFoundAtItsAction() async throws {
    // given a tally whose restore refuses a total over 20, run in process: the store streams on
    // while the states it reached are round-tripped in an instance beside it
    let setup = try Setup(tally: ["EXPLORE_RESTORE_CAP"])
    // when it is explored
    let explored = try await setup.host([
      "explore", "tally", "--runs", "100", "--steps", "100", "--seed", "26", "--out", setup.out, "--isolation", "none",
    ])
    // then the refusal is found and the run cut at the action that reached the state, whatever
    // was streamed after it: shrunk to at most one action more than the three adds it takes
    #expect(explored.status == 1, "\(explored.stdout)\(explored.stderr)")
    let line = try Self.summary(of: explored)
    #expect(line.contains("restore refused the state after"), "\(line)")
    #expect(line.contains("(invariant)"), "\(line)")
    let (file, transcript) = try setup.firstTranscript()
    let actions = Self.actions(typedIn: transcript)
    #expect(actions >= 3 && actions <= 4, "\(transcript)")
    #expect(line.contains("after \(actions) actions"), "\(line)")
    // and host check fails on its transcript, in process too
    let checked = try await setup.host(["check", file, "--isolation", "none"])
    #expect(checked.status == 1, "\(checked.stdout)\(checked.stderr)")
    #expect(checked.stdout.contains("0 passed, 1 failed"), "\(checked.stdout)")
  }

  @Test(
    "a call that never returns is a hang: found, shrunk and replayable, in process (the watch) and in a worker",
    arguments: ["none", "process"])
  func aHangIsFoundShrunkAndReplayable(isolation: String) async throws {
    // given a tally whose add of 9 right after another add never returns
    let setup = try Setup(tally: ["EXPLORE_HANG"])
    // when it is explored with a short call timeout
    let explored = try await setup.host(
      [
        "explore", "tally", "--runs", "100", "--steps", "100", "--seed", "26", "--out", setup.out,
        "--isolation", isolation, "--call-timeout", "0.3",
      ])
    // then the hang is reported as the failure it is, shrunk to the two adds
    #expect(explored.status == 1, "\(explored.stdout)\(explored.stderr)")
    let line = try Self.summary(of: explored)
    #expect(line.contains("did not answer dispatch within 0.3 s"), "\(line)")
    #expect(line.contains("after 2 actions (hang): add amount=1, add amount=9;"), "\(line)")
    if isolation == "none" {
      // in process its thread cannot be stopped: the exploration ends there, shrunk in workers
      #expect(explored.stderr.contains("a call hung in process, where its thread cannot be stopped"))
      #expect(explored.stderr.contains("(shrunk in workers, where the call timeout ends it)"))
    }
    // and its transcript runs in a worker with the call timeout, where host check fails on it
    let (file, transcript) = try setup.firstTranscript()
    #expect(transcript.contains("$ host run tally --isolation process --call-timeout 0.3\n"), "\(transcript)")
    let checked = try await setup.host(["check", file])
    #expect(checked.status == 1, "\(checked.stdout)\(checked.stderr)")
    #expect(checked.stdout.contains("+! error: tally did not answer dispatch within 0.3 s"), "\(checked.stdout)")
  }

  @Test("a store that never settles is a hang: found, shrunk and replayable")
  func aStoreThatNeverSettlesIsAHang() async throws {
    // given a tally whose ping right after an add begins an effect that never ends
    let setup = try Setup(tally: ["EXPLORE_ENDLESS_EFFECT"])
    // when it is explored in process with a short settle timeout
    let explored = try await setup.host(
      [
        "explore", "tally", "--runs", "100", "--steps", "100", "--seed", "26", "--out", setup.out,
        "--isolation", "none", "--settle-timeout", "0.3",
      ])
    // then the settle that never ends is reported as a hang, shrunk to the add and the ping
    #expect(explored.status == 1, "\(explored.stdout)\(explored.stderr)")
    let line = try Self.summary(of: explored)
    #expect(line.contains("tally did not settle within 0.3 s (1 effect in flight) after 2 actions (hang): "), "\(line)")
    #expect(line.contains(": add amount=1, ping;"), "\(line)")
    // and its transcript, run with the same settle timeout, fails under host check
    let (file, transcript) = try setup.firstTranscript()
    #expect(transcript.contains("$ host run tally --isolation none --settle-timeout 0.3\n"), "\(transcript)")
    let checked = try await setup.host(["check", file])
    #expect(checked.status == 1, "\(checked.stdout)\(checked.stderr)")
  }

  @Test("a paced feature explores on the manual clock: its timers fire as ticks, not in real time")
  func aPacedFeatureExploresOnTheManualClock() async throws {
    // given levels regulating once a minute, in process and in a worker
    let setup = try Setup(tally: nil)
    for isolation in ["none", "process"] {
      // when 2 runs of 50 steps are explored, twice with the same seed
      let arguments = [
        "explore", "levels", "--runs", "2", "--steps", "50", "--seed", "3", "--config", #"{"interval": 60000}"#,
        "--isolation", isolation,
      ]
      let first = try await setup.host(arguments)
      let second = try await setup.host(arguments)
      // then it ends clean (each run's journal replays), its minute timers having fired as ticks
      // of the manual clock between the steps: on the real clock, none would have fired
      #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
      let pattern = /explore: levels: no failure in 100 steps; (\d+) ticks of the manual clock; seed 3\n/
      let match = try #require(first.stdout.wholeMatch(of: pattern), "\(first.stdout)")
      #expect((Int(match.1) ?? 0) > 0)
      // and the same seed fires the same timers: the clock moves with the steps, not with time
      #expect(second.stdout == first.stdout)
    }
  }

  @Test("a flow that leaves a feature stopped after :open then :back is found, shrunk and replayable")
  func aFlowThatLeavesAFeatureStoppedIsFound() async throws {
    // given a tally whose instances share one "stopped" flag, in a flow run in process
    let setup = try Setup(tally: ["EXPLORE_STOPPED_GLOBAL"])
    let flow = "\(setup.out)/twice.flow.json"
    try #"{"flow": "twice", "start": {"push": "tally"}, "on": {}}"#.write(
      toFile: flow, atomically: true, encoding: .utf8)
    // when the flow is explored for at most 10,000 steps
    let explored = try await setup.host(
      [
        "explore", "--flow", flow, "--runs", "100", "--steps", "100", "--seed", "26", "--out", setup.out,
        "--isolation", "none",
      ])
    // then the stopped feature is found, after the shortest navigation that stops it
    #expect(explored.status == 1, "\(explored.stdout)\(explored.stderr)")
    #expect(
      explored.stdout.contains("explore: twice: tally, on show, refused an action as stopped"), "\(explored.stdout)")
    let file = "\(setup.out)/twice-explore-1.transcript"
    let typed = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("> ") }
    #expect(typed.prefix(2) == ["> :open tally", "> :back"], "\(typed)")
    #expect(typed.count <= 4, "\(typed)")
    // and host check fails on its transcript
    let checked = try await setup.host(["check", file])
    #expect(checked.status == 1, "\(checked.stdout)\(checked.stderr)")
    #expect(checked.stdout.contains("+! error: tally refused the user action"), "\(checked.stdout)")
  }

  @Test("the main flow explores clean, navigating among the shipped features")
  func theMainFlowExploresClean() async throws {
    let setup = try Setup(tally: nil)
    // Kittens on the catalog file (no network), levels at full speed, wherever home opens them.
    let catalog = "file://\(FixturePlugin.packageRoot)/Plugins/Kittens/catalog.json"
    let explored = try await HostProcess.run(
      ["--plugins", setup.plugins, "explore", "--runs", "2", "--steps", "100", "--seed", "9", "--isolation", "none"],
      environment: setup.environment.merging(["KITTENS_ENDPOINT": catalog, "LEVELS_INTERVAL": "0"]) { _, new in new })
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    #expect(explored.stdout == "explore: main: no failure in 200 steps; seed 9\n")
  }

  @Test("the main flow explores clean with the default config, in workers: kittens' network error is its error state")
  func theMainFlowExploresCleanByDefault() async throws {
    // given no catalog file: kittens asks the network, which its worker's sandbox refuses (seed 9
    // picks kittens first)
    let setup = try Setup(tally: nil)
    // when the main flow is explored as it comes (workers, levels at its own pace)
    let explored = try await setup.host(["explore", "--runs", "1", "--steps", "100", "--seed", "9"])
    // then a refused name lookup, shown by kittens as its error, is no failure
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    // (levels, at its own pace, on the manual clock: its ticks are counted)
    let clean = /explore: main: no failure in 100 steps(; \d+ ticks of the manual clock)?; seed 9\n/
    #expect(explored.stdout.wholeMatch(of: clean) != nil, "\(explored.stdout)")
  }

  @Test("the same seed draws the same sequences")
  func theSameSeedGivesTheSameFailure() async throws {
    let setup = try Setup(tally: ["EXPLORE_RESTORE_CAP"])
    func explore(_ out: String) async throws -> String {
      let result = try await setup.host(
        ["explore", "tally", "--runs", "20", "--steps", "50", "--seed", "1234", "--out", out, "--isolation", "none"])
      #expect(result.status == 1, "\(result.stderr)")
      return result.stdout.replacingOccurrences(of: out, with: "OUT")
    }
    let first = try await explore(try FixturePlugin.temporaryFolder())
    let second = try await explore(try FixturePlugin.temporaryFolder())
    #expect(first == second)
    #expect(first.contains("restore refused the state after"), "\(first)")
  }

  @Test("a feature that keeps the contract explores clean, and :check says so in a run")
  func counterExploresClean() async throws {
    let setup = try Setup(tally: ["RESET_NEEDS_A_TOTAL"])
    let explored = try await setup.host(["explore", "tally", "--runs", "3", "--steps", "200", "--seed", "5"])
    #expect(explored.status == 0, "\(explored.stdout)\(explored.stderr)")
    #expect(explored.stdout == "explore: tally: no failure in 600 steps; seed 5\n")
    let checked = try await HostProcess.run(
      ["--plugins", setup.plugins, "run", "tally"], input: "add amount=2\n:check\n", environment: setup.environment)
    #expect(checked.stdout.hasPrefix("tally keeps the contract here: round trip, view and replay hold\n"))
    // (Under a sanitizer the worker's sandbox says it sets no memory limit.)
    let complaints = checked.stderr.split(separator: "\n").filter {
      FixturePlugin.sanitizer == nil || !$0.contains("memory limit: none under a sanitizer")
    }
    #expect(complaints.isEmpty, "\(checked.stderr)")
  }

  @Test("at a terminal a progress line shows runs, steps, steps/s and failures, and is erased")
  func aTerminalShowsAProgressLine() async throws {
    let setup = try Setup(tally: ["RESET_NEEDS_A_TOTAL"])
    let host = try PseudoTerminal(
      ["--plugins", setup.plugins, "explore", "tally", "--runs", "3", "--steps", "50", "--seed", "4"],
      environment: setup.environment)
    try host.waitFor("explore tally: run 3/3, 150 steps, ")
    try host.waitFor("explore: tally: no failure in 150 steps; seed 4")
    #expect(try host.waitForExit() == 0)
    #expect(host.all.contains(" steps/s, 0 failures"))
    // the progress line is erased before the summary
    let erased = try #require(host.all.range(of: "\r\u{1B}[K", options: .backwards))
    #expect(host.all[erased.upperBound...].hasPrefix("explore: tally: no failure"), "\(host.all)")
  }

  /// A bad command line, and what the error must name.
  struct BadInput: Sendable, CustomTestStringConvertible {
    let id: String
    let arguments: [String]
    let message: String
    var testDescription: String { id }
  }

  static let badInputs: [BadInput] = [
    BadInput(id: "unknown feature", arguments: ["explore", "tallly"], message: "error: unknown feature 'tallly'"),
    BadInput(
      id: "unreadable flow", arguments: ["explore", "--flow", "/nonexistent/flow.json"],
      message: "/nonexistent/flow.json"),
    BadInput(id: "steps not a number", arguments: ["explore", "tally", "--steps", "many"], message: "'many'"),
    BadInput(id: "steps zero", arguments: ["explore", "tally", "--steps", "0"], message: "'0'"),
    BadInput(id: "runs negative", arguments: ["explore", "tally", "--runs", "-1"], message: "'-1'"),
    BadInput(
      id: "out missing", arguments: ["explore", "tally", "--out", "/nonexistent/folder"],
      message: "error: --out '/nonexistent/folder' is not a folder"),
  ]

  @Test("bad input is a usage error naming the value", arguments: badInputs)
  func badInputIsAUsageError(_ input: BadInput) async throws {
    let setup = try Setup(tally: [])
    let result = try await setup.host(input.arguments)
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains(input.message), "\(result.stderr)")
    #expect(result.stderr.contains("explore --help"), "\(result.stderr)")
  }
}
