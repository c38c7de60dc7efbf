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

/// Shrinking a 1,000-step failure of the counter in process: 500 increment/decrement pairs, then
/// the 10 increments that break the invariant `count < 10`; each candidate runs in a fresh store
/// with the per-step probe, as exploring does. Seconds; the result must be the 10 increments.
func exploreShrink() throws -> Double {
  let plugin = loadPlugin("Counter")
  let increment = ExploreStep.action(type: "increment", arguments: [])
  let decrement = ExploreStep.action(type: "decrement", arguments: [])
  let failing =
    Array(repeating: [increment, decrement], count: 495).flatMap { $0 } + Array(repeating: increment, count: 10)
  func fails(_ steps: [ExploreStep]) -> Bool {
    guard let store = try? Store(plugin: plugin, options: Store.Options(rendersViews: false), observer: { _ in }),
      (try? store.start()) != nil
    else { return false }
    defer { _ = store.stop() }
    for step in steps {
      store.send(step.json, source: .user)
      _ = store.waitUntilSettled(timeout: .seconds(10))
      guard case .success(let state) = store.perform({ SessionRuntime.probe($0, id: "counter") }) else { return true }
      if state.contains(#""count":10"#) { return true }
    }
    return false
  }
  precondition(failing.count == 1_000 && fails(failing), "the sequence must fail")
  var shrunk: [ExploreStep] = []
  let elapsed = seconds {
    var shrinker = StepShrinker(simpler: { _ in [] })
    shrunk = shrinker.shrink(failing, fails: fails)
  }
  precondition(shrunk == Array(repeating: increment, count: 10), "shrunk to \(shrunk.map(\.line))")
  return elapsed
}
