import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A worker that dies under a running `host run --session`: one error line, a restart from the
/// journal, and the session goes on and replays.
@Suite("A worker's crash through the CLI")
struct WorkerCrashCLITests {
  /// The children of `pid`, from every one of its threads (workers are started by one of them).
  static func children(of pid: pid_t) -> [pid_t] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.flatMap { task -> [pid_t] in
      let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
      return text.split(separator: " ").compactMap { pid_t(String($0)) }
    }
  }

  @Test func aKilledWorkerIsOneErrorLineAndTheSessionGoesOnAndReplays() throws {
    // given a counter session at 2, its instance in a worker
    let state = try FixturePlugin.temporaryFolder()
    let host = try LiveHost(
      ["run", "counter", "--session", "s", "--isolation", "process"], environment: ["XDG_STATE_HOME": state])
    host.send("increment\nincrement\n:state\n")
    try host.read(through: #"{"clicks":2,"count":2}"#)
    let workers = Self.children(of: host.child.pid)
    #expect(workers.count == 1)
    // when the worker dies
    for worker in workers { kill(worker, SIGKILL) }
    host.send("increment\n:state\n")
    // then the action that met the dead worker is reported and not applied; the feature restarts
    // from its journal
    try host.read(through: #"{"clicks":2,"count":2}"#)
    let errors = host.errors
    #expect(
      errors.contains(#"error: counter crashed (signal 9, Killed) while applying {"type":"increment"}"#), "\(errors)")
    #expect(errors.contains("note: counter restarted at seq 3"), "\(errors)")
    // and the session goes on in a new worker
    host.send("increment\n:state\n")
    try host.read(through: #"{"clicks":3,"count":3}"#)
    #expect(Self.children(of: host.child.pid).count == 1)
    #expect(host.quit() == 0)
    // and its journal, crash line included, replays
    let journal = "\(state)/featurehost/s.jsonl"
    #expect(try String(contentsOfFile: journal, encoding: .utf8).contains(#""crash":"signal 9""#))
    let replay = try HostProcess.run(["replay", journal])
    #expect(replay.status == 0, "\(replay.stderr)")
  }
}
