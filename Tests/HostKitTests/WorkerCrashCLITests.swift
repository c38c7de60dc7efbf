import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A worker that dies between calls under a running `host run --session`: one error line, a
/// restart from the journal, nothing typed is lost, and the session goes on and replays.
@Suite("A worker's crash through the CLI")
struct WorkerCrashCLITests {
  @Test func aKilledWorkerIsOneErrorLineAndTheSessionGoesOnAndReplays() throws {
    // given a counter session at 2, its instance in a worker
    let state = try FixturePlugin.temporaryFolder()
    let host = try LiveHost(
      ["run", "counter", "--session", "s", "--isolation", "process"], environment: ["XDG_STATE_HOME": state])
    try host.send("increment\nincrement\n:state\n", thenReadThrough: #"{"clicks":2,"count":2}"#)
    let workers = ProcessTree.children(of: host.child.pid)
    #expect(workers.count == 1)
    // when the worker dies between calls (and is gone: a zombie has closed its files)
    for worker in workers {
      kill(worker, SIGKILL)
      #expect(ProcessTree.waitUntilEnded(worker))
    }
    host.send("increment\n:state\n")
    // then the loss is reported, the feature restarts from its journal, and the action that met
    // the dead worker, which it never reached, is applied by the new one
    try host.read(through: #"{"clicks":3,"count":3}"#)
    let errors = host.errors
    #expect(errors.contains("error: counter crashed (signal 9, Killed) between calls"), "\(errors)")
    #expect(errors.contains("note: counter restarted at seq 3"), "\(errors)")
    // and the session goes on in a new worker
    try host.send("increment\n:state\n", thenReadThrough: #"{"clicks":4,"count":4}"#)
    #expect(ProcessTree.children(of: host.child.pid).count == 1)
    #expect(host.quit() == 0)
    // and its journal, crash line included, replays
    let journal = "\(state)/featurehost/s.jsonl"
    #expect(try String(contentsOfFile: journal, encoding: .utf8).contains(#""crash":"signal 9""#))
    let replay = try HostProcess.run(["replay", journal])
    #expect(replay.status == 0, "\(replay.stderr)")
  }

  @Test func isolatedTheHostNeverLoadsThePluginItRuns() throws {
    // given a plugin folder with the fixture, run in a worker
    let plugins = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(atPath: try FixturePlugin.path(), toPath: "\(plugins)/libisolated.so")
    let host = try LiveHost(
      ["--plugins", plugins, "run", "fixture", "--isolation", "process"],
      environment: ["XDG_CACHE_HOME": try FixturePlugin.temporaryFolder()])
    try host.send(":state\n", thenReadThrough: #"{"count":0,"#)
    // then its worker maps the plugin, and the host does not: no code of it runs in the host
    let workers = ProcessTree.children(of: host.child.pid)
    #expect(workers.count == 1)
    // Read to the end: /proc files say they are empty.
    let maps = { (pid: pid_t) -> String in
      let file = FileHandle(forReadingAtPath: "/proc/\(pid)/maps")
      defer { try? file?.close() }
      return String(decoding: (try? file?.readToEnd()) ?? Data(), as: UTF8.self)
    }
    #expect(maps(host.child.pid).contains("libFoundation"))
    #expect(workers.allSatisfy { maps($0).contains("libisolated.so") })
    #expect(!maps(host.child.pid).contains("libisolated.so"))
    #expect(host.quit() == 0)
  }
}
