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
  /// A running `host run counter --session s` in a worker, incremented `clicks` times: its state
  /// folder, the host, and its workers (one expected).
  static func counterSession(clicks: Int) throws -> (state: String, host: LiveHost, workers: [pid_t]) {
    let state = try FixturePlugin.temporaryFolder()
    let host = try LiveHost(
      ["run", "counter", "--session", "s", "--isolation", "process"], environment: ["XDG_STATE_HOME": state])
    try host.send(
      String(repeating: "increment\n", count: clicks) + ":state\n",
      thenReadThrough: #"{"clicks":\#(clicks),"count":\#(clicks)}"#)
    let workers = ProcessTree.children(of: host.child.pid)
    #expect(workers.count == 1)
    return (state, host, workers)
  }

  @Test func aKilledWorkerIsOneErrorLineAndTheSessionGoesOnAndReplays() async throws {
    // given a counter session at 2, its instance in a worker
    let (state, host, workers) = try Self.counterSession(clicks: 2)
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
    let replay = try await HostProcess.run(["replay", journal])
    #expect(replay.status == 0, "\(replay.stderr)")
  }

  @Test func aWorkerKilledBetweenCallsIsFoundWithoutWaitingForTheNextAction() throws {
    // given a counter session at 1, its instance in a worker, and nothing typed after
    let (_, host, workers) = try Self.counterSession(clicks: 1)
    // when the worker dies
    for worker in workers { kill(worker, SIGKILL) }
    // then the host reports it and starts a new worker by itself: the socket beside the rings
    // closes with the worker, and the listener sees it
    let errors = try host.waitForErrors(containing: "note: counter restarted at seq 2")
    #expect(errors.contains("error: counter crashed (signal 9, Killed) between calls"), "\(errors)")
    let restarted = ProcessTree.children(of: host.child.pid)
    #expect(restarted.count == 1 && restarted != workers, "\(restarted)")
    // and the state is as it was
    try host.send(":state\n", thenReadThrough: #"{"clicks":1,"count":1}"#)
    #expect(host.quit() == 0)
  }

  @Test func aHostKilledWithSIGKILLLeavesNoWorkerBehind() throws {
    // given a counter session with its worker running (in a process group of its own, so a
    // signal to the host's group does not reach it)
    let (_, host, workers) = try Self.counterSession(clicks: 1)
    // when the host alone is killed, with no chance to clean up
    kill(host.child.pid, SIGKILL)
    _ = host.child.finish(until: nil)
    // then its worker ends too (the kernel's parent-death signal), not left serving nobody
    for worker in workers {
      #expect(ProcessTree.waitUntilEnded(worker, within: .seconds(10)), "\(ProcessTree.commandLine(worker))")
    }
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
