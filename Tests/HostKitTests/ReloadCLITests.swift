import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Hot reload in the CLI: --watch, :reload, replay")
struct ReloadCLITests {
  /// Reads the host's stderr until it holds `text` `times` times; returns all of it so far.
  final class ErrorReader {
    let host: LiveHost
    private(set) var text = ""

    init(_ host: LiveHost) { self.host = host }

    @discardableResult
    func wait(for wanted: String, times: Int = 1) throws -> String {
      let until = ContinuousClock.now + .seconds(120)
      while true {
        // All of stderr so far: each message counts once, however often it is looked at.
        text = host.errors
        if text.components(separatedBy: wanted).count - 1 >= times { return text }
        guard host.isRunning else { throw FixtureError("the host ended before '\(wanted)'; stderr: \(text)") }
        guard host.child.pump(until: until) else { throw FixtureError("no '\(wanted)' on stderr; stderr: \(text)") }
      }
    }
  }

  /// Replaces `file` with `source` as an editor or a build tool that renames would.
  static func replace(_ file: String, with source: String) throws {
    let temporary = file + ".new"
    _ = try? FileManager.default.removeItem(atPath: temporary)
    try FileManager.default.copyItem(atPath: source, toPath: temporary)
    guard rename(temporary, file) == 0 else { throw FixtureError("rename failed: errno \(errno)") }
  }

  @Test func watchReloadsEachRebuildKeepsTheStateAndSurvivesBadBuilds() throws {
    // given a watched run of 1.0.0 (in a worker, the default) at count 2
    let (folder, file) = try ReloadFixture.folder()
    let host = try LiveHost(["--plugins", folder, "run", "reloadable", "--watch"])
    defer { host.kill() }
    let errors = ErrorReader(host)
    try host.send("increment\nincrement\n:state\n", thenReadThrough: #"{"count":2}"#)
    // when the file is rebuilt in place as 1.1.0, which adds an action
    try ReloadFixture.build(.withDouble, into: file)
    try errors.wait(for: "note: reloadable reloaded (1.0.0 -> 1.1.0), state kept\n")
    host.send("double\n:state\n")
    // then the state was kept and the new action runs
    try host.read(through: #"{"count":4}"#)
    // when a build refuses the state, then another crashes while it loads
    try ReloadFixture.build(.renamedField, into: file)
    try errors.wait(
      for: "error: reloadable 1.2.0 refused the running state: the state has no \"total\" (a whole number)\nhelp: ")
    try ReloadFixture.build(.crashingOnLoad, into: file)
    try errors.wait(for: "crashed with signal 11 (Segmentation fault) in fh_plugin_entry_v1\nhelp: ")
    // then 1.1.0 goes on with its state
    try host.send("double\n:state\n", thenReadThrough: #"{"count":8}"#)
    // when the build is fixed, it reloads
    try ReloadFixture.build(.first, into: file)
    try errors.wait(for: "note: reloadable reloaded (1.1.0 -> 1.0.0), state kept\n")
    try host.send(":state\n", thenReadThrough: #"{"count":8}"#)
    #expect(host.quit() == 0)
  }

  @Test func aFileThatIsTheBuildAlreadyRunningGetsOneNotePerChange() throws {
    // given a watched run of 1.0.0 and a copy of its file
    let (folder, file) = try ReloadFixture.folder()
    let copy = "\(folder)/saved.so.bak"
    try FileManager.default.copyItem(atPath: file, toPath: copy)
    let host = try LiveHost(["--plugins", folder, "run", "reloadable", "--watch"])
    defer { host.kill() }
    let errors = ErrorReader(host)
    host.send("increment\n:state\n")
    try host.read(through: #"{"count":1}"#)
    // when the same build is put back in place of the file
    try Self.replace(file, with: copy)
    // then a note says so, once, and nothing reloads
    let note = "note: reloadable: the new file is the build already running (1.0.0); nothing to reload\n"
    try errors.wait(for: note)
    host.send(":state\n")
    try host.read(through: #"{"count":1}"#)
    #expect(host.errors.components(separatedBy: note).count - 1 == 1, "\(host.errors)")
    #expect(!host.errors.contains("reloaded"))
    // and the next change of the file, the same bytes again, is said again
    try Self.replace(file, with: copy)
    try errors.wait(for: note, times: 2)
    #expect(host.quit() == 0)
  }

  @Test func theMainFlowWatchesTheFeaturesItPresents() throws {
    // given the main flow with --watch, the fixture picked from the home menu
    let (folder, file) = try ReloadFixture.folder()
    let host = try LiveHost(["--plugins", folder, "--watch"])
    defer { host.kill() }
    let errors = ErrorReader(host)
    try host.send("pick entry=reloadable\nincrement\nwait\n:state\n", thenReadThrough: #"{"count":1}"#)
    // when its file is rebuilt, then it is reloaded in place in the flow, its state kept and the
    // effect in flight cancelled
    try ReloadFixture.build(.withDouble, into: file)
    try errors.wait(for: "note: reloadable reloaded (1.0.0 -> 1.1.0), state kept; 1 effect(s) in flight cancelled\n")
    try host.send("double\n:state\n:back\n:state\n", thenReadThrough: #"{"count":2}"#)
    #expect(try host.line(startingWith: "{").contains(#""picked":"reloadable""#))
    #expect(host.quit() == 0)
  }

  @Test func reloadCommandInProcessLoadsACopyAndReplayNamesTheReloadPoint() async throws {
    // given a session of 1.0.0 in the host's own process
    let (folder, file) = try ReloadFixture.folder()
    let state = try FixturePlugin.temporaryFolder()
    let environment = ["XDG_STATE_HOME": state]
    let host = try LiveHost(
      ["--plugins", folder, "run", "reloadable", "--isolation", "none", "--session", "hot"], environment: environment)
    defer { host.kill() }
    let errors = ErrorReader(host)
    try host.send("increment\n:state\n", thenReadThrough: #"{"count":1}"#)
    // when the plugin is rebuilt (not watched) and ':reload' is typed
    try ReloadFixture.build(.withDouble, into: file)
    host.send(":reload\n")
    try errors.wait(for: "note: reloadable reloaded (1.0.0 -> 1.1.0), state kept\n")
    try host.send("double\n:state\n", thenReadThrough: #"{"count":2}"#)
    #expect(host.quit() == 0)
    // then replaying its journal with the current build names the reload and checks the states
    let journal = "\(state)/featurehost/hot.jsonl"
    let replay = try await HostProcess.run(["--plugins", folder, "replay", journal], environment: environment)
    #expect(replay.status == 0, "\(replay.stderr)")
    let hash = try #require(BuildFile.hash(file))
    #expect(
      replay.stderr.contains(
        "note: journal '\(journal)' seq 2: reloadable was reloaded (1.0.0 -> 1.1.0, build \(hash))\n"))
    #expect(replay.stdout.hasSuffix("Reloadable 1.1.0\n  count: 2\n"))
    // and the session restores with the new build
    let restored = try await HostProcess.run(
      ["--plugins", folder, "run", "reloadable", "--session", "hot"], input: ":state\n", environment: environment)
    #expect(restored.stdout.hasPrefix(#"{"count":2}"#), "\(restored.stderr)")
  }

  @Test func fiftyReloadsGrowTheHostByAtMostFiveMegabytesAndLeaveOneWorker() throws {
    // given a watched run in a worker, and two builds to swap in turn
    let (folder, file) = try ReloadFixture.folder()
    let builds = try FixturePlugin.temporaryFolder()
    let versions = ["\(builds)/first.so", "\(builds)/double.so"]
    try ReloadFixture.build(.first, into: versions[0])
    try ReloadFixture.build(.withDouble, into: versions[1])
    let host = try LiveHost(["--plugins", folder, "run", "reloadable", "--watch"])
    defer { host.kill() }
    let errors = ErrorReader(host)
    try host.send("increment\n:state\n", thenReadThrough: #"{"count":1}"#)
    try Self.replace(file, with: versions[1])
    try errors.wait(for: "state kept\n")
    let before = try host.residentBytes()
    // when the file is replaced 50 more times
    for round in 1...50 {
      try Self.replace(file, with: versions[(round + 1) % 2])
      try errors.wait(for: "state kept\n", times: round + 1)
    }
    try host.send(":state\n", thenReadThrough: #"{"count":1}"#)
    // then the host grew by at most 5 MB, and one worker is left: the last one
    let growth = try host.residentBytes() - before
    #expect(growth <= 5 << 20, "the host grew by \(growth) bytes over 50 reloads")
    // (the last old worker may still be on its way out: it is waited for)
    let left = ProcessTree.children(of: host.child.pid, onceAtMost: 1)
    #expect(left.count == 1, "\(left.map(ProcessTree.commandLine))")
    #expect(!errors.text.contains("error:"), "\(errors.text)")
    #expect(host.quit() == 0)
  }

  @Test func aMessageWaitedForTwiceMustHaveComeTwice() throws {
    // given a host that warns once on stderr, then ends
    let host = try LiveHost(["--plugins", "\(try FixturePlugin.temporaryFolder())/missing", "nonsense"])
    defer { host.kill() }
    let errors = ErrorReader(host)
    try errors.wait(for: "does not exist")
    // then waiting for the warning a second time waits for the host, which ends without it
    #expect(throws: FixtureError.self) { try errors.wait(for: "does not exist", times: 2) }
    #expect(errors.text.components(separatedBy: "does not exist").count == 2, "\(errors.text)")
  }

  @Test func aBuildThatHangsWhileLoadingIsRefusedAtTheScanTimeoutLeavingNoChildBehind() throws {
    // given a watched run in a worker, scanning with a 3 s timeout
    let (folder, file) = try ReloadFixture.folder()
    let host = try LiveHost(["--scan-timeout", "3", "--plugins", folder, "run", "reloadable", "--watch"])
    defer { host.kill() }
    let errors = ErrorReader(host)
    try host.send("increment\n:state\n", thenReadThrough: #"{"count":1}"#)
    let running = ProcessTree.children(of: host.child.pid)
    #expect(running.count == 1)
    // when the file is rebuilt as a build whose entry function never returns
    try ReloadFixture.build(.hangingOnLoad, into: file)
    try errors.wait(for: "did not answer within 3 s")
    // then its scanner was killed and the worker started beside it ended: the running worker alone
    // is left, and goes on
    #expect(ProcessTree.children(of: host.child.pid) == running, "\(errors.text)")
    try host.send("increment\n:state\n", thenReadThrough: #"{"count":2}"#)
    #expect(host.quit() == 0)
  }

  @Test func aHostKilledWhileANewBuildIsScannedTakesItsChildrenWithIt() throws {
    // given a watched run whose new build hangs in its scanner (and in the worker started beside it)
    let (folder, file) = try ReloadFixture.folder()
    let host = try LiveHost(["--scan-timeout", "3600", "--plugins", folder, "run", "reloadable", "--watch"])
    defer { host.kill() }
    try host.send("increment\n:state\n", thenReadThrough: #"{"count":1}"#)
    try ReloadFixture.build(.hangingOnLoad, into: file)
    let until = ContinuousClock.now + .seconds(120)
    var children: [ProcessIdentity] = []
    // (the running worker, the scanner, and the new worker)
    func scanning() -> Bool {
      children.count >= 3 && children.contains { ProcessTree.commandLine($0.pid).contains(" __scan ") }
    }
    while !scanning() && ContinuousClock.now < until {
      sched_yield()
      children = ProcessTree.children(of: host.child.pid).compactMap(ProcessIdentity.init)
    }
    try #require(scanning(), "\(children.map { ProcessTree.commandLine($0.pid) })")
    // when the host is killed
    host.kill()
    // then every child it had ends with it
    let left = ProcessTree.waitUntilEnded(children, within: .seconds(30))
    #expect(left.isEmpty, "\(left.map { ProcessTree.commandLine($0.pid) })")
    for child in left { kill(child.pid, SIGKILL) }
  }
}
