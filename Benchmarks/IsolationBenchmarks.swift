import HostKit

// The price of running a feature in a worker process (`--isolation process`).

let workerFactory = InstanceFactory.worker(executable: "\(folder)/host", callTimeout: 10)

/// counter.dispatch with the counter in a worker: a burst queued in a Store, sent across the
/// socket in batches, until settled.
func counterDispatchIsolated(actions: Int) throws -> Double {
  let store = try Store(plugin: loadPlugin("Counter"), instances: workerFactory, observer: { _ in })
  try store.start()
  _ = store.waitUntilSettled(timeout: .seconds(60))
  let increment = #"{"type":"increment"}"#
  let elapsed = seconds {
    for _ in 0..<actions { store.send(increment, source: .user) }
    _ = store.waitUntilSettled(timeout: .seconds(600))
  }
  let state = store.perform { try? $0.snapshot() }
  precondition(state == #"{"clicks":\#(actions),"count":\#(actions)}"#, "every action must be applied")
  store.stop()
  return elapsed * 1e9 / Double(actions)
}

/// One dispatch to a counter in a worker, waited for, on this thread: the round trip.
func isolatedRoundtrip(actions: Int, factory: InstanceFactory = workerFactory) throws -> Double {
  let target = SilentTarget()
  let instance = try factory.makeInstance(of: loadPlugin("Counter"), config: "{}", target: target)
  try instance.start()
  // feature_abi.h: the lifecycle action comes first.
  _ = try instance.dispatch(#"{"type":"created"}"#)
  let increment = #"{"type":"increment"}"#
  let elapsed = try seconds {
    for _ in 0..<actions { _ = try instance.dispatch(increment) }
  }
  try instance.stop()
  instance.destroy()
  return elapsed * 1e9 / Double(actions)
}

/// host.pipe with the counter in a worker (the default isolation).
func hostPipeIsolated(lines: Int) throws -> Double {
  try hostPipe(lines: lines, isolation: "process")
}

/// Starting a counter worker and creating its instance, until its first answer (`start`), then
/// destroying it and reaping the worker (`stop`): with the sandbox (the default) or without; both
/// in milliseconds.
func workerStartAndStop(sandbox: SandboxSettings) throws -> (start: Double, stop: Double) {
  let factory = InstanceFactory.worker(executable: "\(folder)/host", callTimeout: 10, sandbox: sandbox)
  let plugin = loadPlugin("Counter")
  let target = SilentTarget()
  var instance: (any PluginInstance)?
  let start = try seconds {
    let made = try factory.makeInstance(of: plugin, config: "{}", target: target)
    try made.start()
    instance = made
  }
  let stop = seconds { instance?.destroy() }
  return (start * 1e3, stop * 1e3)
}
