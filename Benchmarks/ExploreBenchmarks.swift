import HostKit

/// `host explore counter` in process, as a whole process: `steps` steps in one run (each step a
/// drawn action or travel, the store, the journal, then the checks: snapshot, restore, snapshot,
/// render; the journal's replay at the end). Nanoseconds per step. The process must exit 0 (no
/// failure found), which the counter does.
func exploreStep(steps: Int) throws -> Double {
  let process = ChildProcess(
    "\(folder)/host",
    arguments: ["explore", "counter", "--isolation", "none", "--runs", "1", "--steps", "\(steps)", "--seed", "1"])
  return try timedProcess(process) * 1e9 / Double(steps)
}
