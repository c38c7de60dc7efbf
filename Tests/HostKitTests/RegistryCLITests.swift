import FeatureTesting
import Foundation
import Testing

@Suite("host with a plugin registry")
struct RegistryCLITests {
  /// A bad candidate file, and the reason `host list` gives for it.
  struct BadCandidate: Sendable, CustomTestStringConvertible {
    let id: String
    let name: String
    /// Makes the file at the path.
    let make: @Sendable (String) throws -> Void
    let reason: String
    var testDescription: String { id }
  }

  static func fixture(_ defines: [String]) -> @Sendable (String) throws -> Void {
    { path in try FileManager.default.copyItem(atPath: try FixturePlugin.path(defines), toPath: path) }
  }

  static let badCandidates: [BadCandidate] = [
    BadCandidate(
      id: "segfault-in-entry", name: "libcrash.so", make: fixture(["FIXTURE_CRASH_IN_ENTRY"]),
      reason: "crashed with signal 11 (Segmentation fault) in fh_plugin_entry_v1"),
    BadCandidate(
      id: "segfault-in-constructor", name: "libctor.so", make: fixture(["FIXTURE_CRASH_IN_CONSTRUCTOR"]),
      reason: "crashed with signal 11 (Segmentation fault) in dlopen (the library's constructors)"),
    BadCandidate(
      id: "hang-in-entry", name: "libhang.so", make: fixture(["FIXTURE_HANG_IN_ENTRY"]),
      reason: "did not answer within 1 s in fh_plugin_entry_v1"),
    BadCandidate(
      id: "fifo", name: "x.so", make: { path in #expect(mkfifo(path, 0o600) == 0) },
      reason: "not a regular file but a FIFO (named pipe); it was not opened"),
    BadCandidate(
      id: "folder", name: "y.so", make: { path in #expect(mkdir(path, 0o700) == 0) },
      reason: "not a regular file but a folder; it was not opened"),
    BadCandidate(
      id: "not-elf", name: "libtext.so",
      make: { path in
        try "just text\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
      },
      reason: "is not a loadable shared library"),
  ]

  /// A plugin folder holding the good fixture and `bad`, and a cache folder of its own.
  static func folders(with bad: [BadCandidate]) throws -> (plugins: String, environment: [String: String]) {
    let folder = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(atPath: try FixturePlugin.path(), toPath: "\(folder)/libgood.so")
    for candidate in bad { try candidate.make("\(folder)/\(candidate.name)") }
    return (folder, ["XDG_CACHE_HOME": try FixturePlugin.temporaryFolder()])
  }

  @Test("a bad plugin file is rejected with its reason and the rest still lists and runs", arguments: badCandidates)
  func aBadCandidateIsRejectedBesideAGoodOne(_ bad: BadCandidate) async throws {
    // given a plugin folder with a good fixture and one bad candidate
    let (folder, environment) = try Self.folders(with: [bad])
    // when the host lists the plugins (a hang is killed at the scan timeout, well inside the test's)
    let listed = try await HostProcess.run(
      ["--scan-timeout", "1", "--plugins", folder, "list"], environment: environment, timeout: .seconds(60))
    // then it exits 0, lists the good one and rejects the bad one with its one-line reason
    #expect(listed.status == 0)
    let lines = listed.stdout.split(separator: "\n").map(String.init)
    #expect(
      lines.contains {
        $0.hasPrefix("fixture ")
          && $0.hasSuffix("\(folder)/libgood.so  needs: write destroy_log's path, fault_once's path, load_log's path")
      })
    let rejected = lines.filter { $0.hasPrefix("rejected  \(folder)/\(bad.name)  ") }
    #expect(rejected.count == 1)
    #expect(rejected.first?.contains(bad.reason) == true)
    // and the good one runs, in a session that restores and replays
    let state = ["XDG_STATE_HOME": try FixturePlugin.temporaryFolder()]
    let run = try await HostProcess.run(
      ["--scan-timeout", "1", "--plugins", folder, "run", "fixture", "--session", "s"], input: "tick tag=T\n:state\n",
      environment: environment.merging(state) { $1 }, timeout: .seconds(60))
    #expect(run.status == 0)
    #expect(run.stdout.hasPrefix(#"{"count":0,"disorder":0,"foreign":1,"pings":0,"reentered":0}"#))
    let restored = try await HostProcess.run(
      ["--scan-timeout", "1", "--plugins", folder, "run", "fixture", "--session", "s"], input: ":state\n",
      environment: environment.merging(state) { $1 }, timeout: .seconds(60))
    #expect(
      restored.stdout.hasPrefix(#"{"count":0,"disorder":0,"foreign":1,"pings":0,"reentered":0}"#),
      "\(restored.stdout) \(restored.stderr)")
    let replay = try await HostProcess.run(
      ["--scan-timeout", "1", "--plugins", folder, "replay", "\(state["XDG_STATE_HOME"]!)/featurehost/s.jsonl"],
      environment: environment, timeout: .seconds(60))
    #expect(replay.status == 0, "\(replay.stderr)")
  }

  @Test func allBadCandidatesTogetherCostNoMoreThanTheirScans() async throws {
    // given every bad candidate beside the good fixture
    let (folder, environment) = try Self.folders(with: Self.badCandidates)
    // when the host lists them twice
    let first = try await HostProcess.run(
      ["--scan-timeout", "1", "--plugins", folder, "list"], environment: environment, timeout: .seconds(60))
    let second = try await HostProcess.run(
      ["--scan-timeout", "1", "--plugins", folder, "list"], environment: environment, timeout: .seconds(60))
    // then both list the same, each bad one rejected once, from the cache the second time
    #expect(first.status == 0)
    #expect(first.stdout == second.stdout)
    for bad in Self.badCandidates {
      #expect(first.stdout.contains("rejected  \(folder)/\(bad.name)  "))
    }
    let cache = try String(
      contentsOfFile: "\(try #require(environment["XDG_CACHE_HOME"]))/featurehost/registry.json", encoding: .utf8)
    #expect(cache.contains("crashed with signal 11"))
    #expect(cache.contains("did not answer within 1 s"))
  }

  @Test func runLoadsOnlyTheFeatureItRuns() async throws {
    // given a fixture that logs each process loading it, beside the counter, with a warm registry
    let folder = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(
      atPath: try FixturePlugin.path(["FIXTURE_LOG_LOADS"]), toPath: "\(folder)/liblogged.so")
    let log = "\(try FixturePlugin.temporaryFolder())/loads.log"
    // Workers start with a clean environment: they are told to keep the log's variable.
    let environment = [
      "XDG_CACHE_HOME": try FixturePlugin.temporaryFolder(), "FIXTURE_LOAD_LOG": log,
      "FEATUREHOST_WORKER_ENV": "FIXTURE_LOAD_LOG",
    ]
    // (The log exists: a sandbox grants a declared file only when it is there.)
    #expect(FileManager.default.createFile(atPath: log, contents: nil))
    let listed = try await HostProcess.run(["--plugins", folder, "list"], environment: environment)
    #expect(listed.stdout.contains("fixture "))
    // The scanner loaded it with no grant: its constructor could not write the log.
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "")
    // when the counter runs
    let counter = try await HostProcess.run(
      ["--plugins", folder, "run", "counter"], input: "increment\n", environment: environment)
    #expect(counter.status == 0)
    // then the fixture was not loaded; running it loads it once, in its worker, which its
    // manifest's needs let write the log
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "")
    let fixture = try await HostProcess.run(
      ["--plugins", folder, "run", "fixture"], input: "", environment: environment)
    #expect(fixture.status == 0)
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "loaded\n")
  }

  @Test func theScanTimeoutMustBeAPositiveNumberOfSeconds() async throws {
    let result = try await HostProcess.run(["--scan-timeout", "soon", "list"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("'soon'"))
  }

  @Test func theScannerModeIsHiddenFromHelp() async throws {
    let help = try await HostProcess.run(["--help"])
    #expect(help.status == 0)
    #expect(!help.stdout.contains("__scan"))
    #expect(help.stdout.contains("--scan-timeout SECONDS"))
  }
}
