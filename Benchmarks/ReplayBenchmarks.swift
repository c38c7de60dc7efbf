import Foundation
import HostKit

// `host replay` of a long counter session, as a whole process: in process and in a worker.

/// A counter session of `actions` actions recorded by a real `host run counter --session`, in a
/// fresh state folder; returns the folder (to remove) and the journal's path.
func recordCounterSession(actions: Int) throws -> (stateHome: String, journal: String) {
  let stateHome = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(getpid())").path
  try? FileManager.default.removeItem(atPath: stateHome)
  var environment = ChildProcess.currentEnvironment
  environment["XDG_STATE_HOME"] = stateHome
  var process = ChildProcess(
    "\(folder)/host", arguments: ["run", "counter", "--session", "replayed", "--isolation", "none"],
    environment: environment)
  // Increments and decrements alternate, so each action changes the state.
  let lines = (0..<actions).map { $0 & 1 == 0 ? "increment\n" : "decrement\n" }.joined()
  process.standardInput = .bytes(Array(lines.utf8))
  _ = try timedProcess(process)
  let journal = try SessionDirectory(root: "\(stateHome)/featurehost").path(for: "replayed")
  let (recorded, _) = try Journal.read(path: journal).records(stoppingAtDamage: true)
  let applied = recorded.filter { if case .action = $0 { true } else { false } }.count
  // The run's own `created` comes first.
  precondition(applied == actions + 1, "the session must hold every action, it holds \(applied)")
  return (stateHome, journal)
}

/// Seconds of `host replay JOURNAL --isolation ISOLATION` (`none` or the default, `process`), from
/// spawn to reaped. Named even when it is the default, which FEATUREHOST_ISOLATION could change.
func hostReplay(journal: String, isolation: String) throws -> Double {
  try timedProcess(ChildProcess("\(folder)/host", arguments: ["replay", journal, "--isolation", isolation]))
}
