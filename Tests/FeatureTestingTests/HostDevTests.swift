import FeatureTesting
import Foundation
import HostKit
import Testing

/// `host dev`: a folder made by `host new` is built, run, rebuilt on each save and reloaded with
/// its state; a failed build is shown and the feature keeps running.
@Suite("host dev")
struct HostDevTests {
  /// Reads a live host's stderr until it holds `wanted`.
  final class Errors {
    let host: LiveHost
    private(set) var text = ""

    init(_ host: LiveHost) { self.host = host }

    func wait(for wanted: String, within limit: Duration = .seconds(600)) throws {
      let until = ContinuousClock.now + limit
      while true {
        // All of stderr so far.
        text = host.errors
        if text.contains(wanted) { return }
        guard host.isRunning else { throw FixtureError("host dev ended before '\(wanted)'; stderr: \(text)") }
        guard host.child.pump(until: until) else { throw FixtureError("no '\(wanted)' on stderr; stderr: \(text)") }
      }
    }
  }

  /// Writes `file` once, with `old` (found exactly once) replaced and `appending` added.
  static func edit(_ file: String, replacing old: String, with new: String, appending: String = "") throws {
    let text = try String(contentsOfFile: file, encoding: .utf8)
    guard text.components(separatedBy: old).count == 2 else {
      throw FixtureError("'\(file)' does not hold '\(old)' exactly once")
    }
    try (text.replacingOccurrences(of: old, with: new) + appending).write(
      toFile: file, atomically: false, encoding: .utf8)
  }

  /// Runs `host dev` in a new plugin folder through a change, a broken build and a fix.
  static func develop(
    language: String, name: String, source: String, isolation: String, within limit: Duration
  ) throws {
    let parent = try HostNewTests.parent()
    let created = try HostProcess.run(["new", name, "--lang", language, "--dir", parent])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(created.stdout.contains(" dev      # runs it, rebuilds and reloads it (state kept) on every save\n"))
    let folder = "\(parent)/\(name)"
    let file = "\(folder)/\(source)"
    // given host dev running the feature at total 3
    // The builds' SwiftPM lock files go to TMPDIR: one removed at exit, not /tmp.
    let scratch = try FixturePlugin.temporaryFolder(prefix: "featurehost-swiftpm")
    let host = try LiveHost(
      ["dev", folder, "--isolation", isolation], environment: ["TMPDIR": scratch], deadline: limit)
    defer { host.kill() }
    let errors = Errors(host)
    host.send("add amount=3\n:state\n")
    try host.read(through: #"{"total":3}"#)
    // when the source changes, then it is rebuilt and reloaded with the state kept
    try edit(file, replacing: "0.1.0", with: "0.2.0")
    try errors.wait(for: "note: \(name) reloaded (0.1.0 -> 0.2.0), state kept\n", within: limit)
    host.send(":help\n")
    try host.read(through: "\(name == "tally" ? "Tally" : "WordCount") 0.2.0 (\(name))")
    // when the source is broken, then the build errors are shown and the feature goes on
    let broken = "\nthis does not compile\n"
    try edit(file, replacing: "0.2.0", with: "0.3.0", appending: broken)
    try errors.wait(for: "error: the build failed; \(name) goes on with the last good build:\n", within: limit)
    try errors.wait(for: "help: fix it and save: it builds again\n", within: limit)
    host.send("add amount=4\n:state\n")
    try host.read(through: #"{"total":7}"#)
    // when it is fixed, it reloads again
    try edit(file, replacing: broken, with: "")
    try errors.wait(for: "note: \(name) reloaded (0.2.0 -> 0.3.0), state kept\n", within: limit)
    host.send(":state\n")
    try host.read(through: #"{"total":7}"#)
    #expect(host.quit() == 0)
  }

  @Test func aCFolderIsRebuiltWithMakeAndReloadedInAWorker() async throws {
    try await offPool {
      try Self.develop(language: "c", name: "tally", source: "tally.c", isolation: "process", within: .seconds(120))
    }
  }

  @Test(.timeLimit(.minutes(30)))
  func aSwiftPackageIsRebuiltAndItsNewBuildLoadedAsACopyInProcess() async throws {
    try await offPool {
      try Self.develop(
        language: "swift", name: "word-count", source: "Sources/WordCountFeature/WordCountFeature.swift",
        isolation: "none", within: .seconds(1500))
    }
  }
}
