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

/// The probe exploring makes after each action (in process the store thread takes the first
/// snapshot and the rest is made beside it, in an instance of its own; in a worker all of it on
/// the store's instance), on a counter in process, each after an `increment` (an action has just
/// changed the state, so nothing of the state is encoded yet): `new`, a state not yet checked (snapshot, restore, snapshot, render,
/// then noted in the cache); `seen`, one the cache holds (one snapshot and a lookup). Side by
/// side, so the cache's hit never hides its miss. `action` is the increment alone, which both
/// runs pay and which is taken off them. Nanoseconds per probe (per action for `action`).
func exploreProbe(probes: Int) throws -> (new: Double, seen: Double, action: Double) {
  let instance = try InstanceFactory.inProcess.makeInstance(
    of: loadPlugin("Counter"), config: "{}", target: SilentTarget())
  try instance.start()
  _ = try instance.dispatch(#"{"type":"created"}"#)
  defer { try? instance.stop() }
  let increment = #"{"type":"increment"}"#
  let start = try instance.snapshot()
  /// `probes` increments from the start, each probed with the cache `cache` gives (none: no probe).
  func run(_ cache: () -> ProbeCache?) throws {
    try instance.restore(start)
    for _ in 0..<probes {
      _ = try instance.dispatch(increment)
      guard let cache = cache() else { continue }
      guard case .success = SessionRuntime.probe(instance, id: "counter", cache: cache) else {
        throw HostError("the counter's probe failed")
      }
    }
  }
  let action = try seconds { try run { nil } }
  // Each probe of `new` on a fresh cache: the miss path, with the insertion it makes.
  let new = try seconds { try run { ProbeCache() } }
  // `seen`: the same states again, every one of them in the cache.
  let cache = ProbeCache()
  try run { cache }
  let seen = try seconds { try run { cache } }
  let perAction = action * 1e9 / Double(probes)
  return (new * 1e9 / Double(probes) - perAction, seen * 1e9 / Double(probes) - perAction, perAction)
}
