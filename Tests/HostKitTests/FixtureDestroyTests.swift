import FeatureTesting
import Foundation
import HostKit
import Testing

/// A feature that is stopped is destroyed at once: the C fixture records `destroy` in a log file.
@Suite("Stopped features are destroyed")
struct FixtureDestroyTests {
  /// The lines of the destroy log at `path` (none when it does not exist yet).
  static func destroyLines(_ path: String) -> [String] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").map(String.init)
  }

  @Test func stoppingAStoreDestroysItsInstance() throws {
    // given a started store over the fixture, told where to log its destroy
    let log = "\(try FixturePlugin.temporaryFolder())/destroy.log"
    let plugin = try PluginLoader.load(try FixturePlugin.path())
    let store = try Store(plugin: plugin, config: #"{"destroy_log":"\#(log)"}"#, observer: { _ in })
    try store.start()
    #expect(Self.destroyLines(log).isEmpty)
    // when it stops
    store.stop()
    // then its instance was destroyed, once
    let lines = Self.destroyLines(log)
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("destroy ") == true)
  }

  @Test func aFeaturePoppedWithBackIsDestroyedWhileTheHostRuns() throws {
    // given a host running the counter, with the fixture in a trusted plugin folder
    let plugins = try FixturePlugin.temporaryFolder()
    let library = "\(plugins)/libfixture.so"
    try FixturePlugin.build([], into: library)
    // The loader refuses group- or other-writable plugins, whatever the umask made.
    #expect(chmod(library, 0o755) == 0)
    let log = "\(plugins)/destroy.log"
    // The worker's sandbox grants the declared log only when it exists.
    #expect(FileManager.default.createFile(atPath: log, contents: nil))
    let host = try LiveHost(
      ["--plugins", plugins, "run", "counter"],
      environment: [
        "FIXTURE_DESTROY_LOG": log, "FEATUREHOST_WORKER_ENV": "FIXTURE_DESTROY_LOG",
      ])
    // when the fixture is opened over the counter, then popped, with stdin still open
    try host.send(":open fixture\n", thenReadThrough: "fixture ")
    try host.read(through: "count: 0")
    #expect(Self.destroyLines(log).isEmpty)
    host.send(":back\n")
    // then once the counter is revealed (the coordinator retires the popped feature first)
    try host.read(through: "Counter\n  count:  0\n")
    // the fixture's instance was destroyed exactly once, while the host is still running
    #expect(host.isRunning)
    #expect(Self.destroyLines(log) == ["destroy 1"])
    // and the host still quits cleanly, destroying nothing more
    #expect(host.quit() == 0)
    #expect(Self.destroyLines(log) == ["destroy 1"])
  }

  @Test func tenThousandOpenBackCyclesKeepTheHostsMemoryFlat() throws {
    // given a host running the counter in its own process (workers have their own destroy test),
    // warmed up by 1,000 open/back cycles
    let host = try LiveHost(["run", "counter", "--isolation", "none"])
    let state = #"{"clicks":0,"count":0}"#
    func cycles(_ count: Int) throws {
      // In batches, reading as it goes: a host blocked on a full stdout reads no more input.
      for _ in 0..<(count / 100) {
        try host.send(String(repeating: ":open counter\n:back\n", count: 100) + ":state\n", thenReadThrough: state)
      }
    }
    try cycles(1_000)
    let before = try host.residentBytes()
    // when 10,000 more counters are opened over it and popped
    try cycles(10_000)
    let after = try host.residentBytes()
    // then every popped store and instance was freed: resident memory grew by 2 MB at most. Not
    // under ASan, which keeps a record of every thread that ever ran (~190 bytes; one per store).
    if FixturePlugin.sanitizer != "address" {
      #expect(after - before <= 2 << 20, "resident memory grew from \(before) to \(after) bytes")
    }
    #expect(host.quit() == 0)
  }
}
