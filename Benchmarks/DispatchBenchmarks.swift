import HostKit

// Actions that are all different, as a real session's are: nothing can be remembered from one
// action to the next, so each pays its whole parse, decode and reduce.

/// `count` counter actions, each one different: an `increment` or `decrement` with a run of
/// spaces before its closing brace, 0 to 199 long. (Counter's actions have no arguments, and
/// feature_abi.h refuses a member an action does not have, so the bytes vary in whitespace.)
func distinctCounterActions(_ count: Int) -> [String] {
  (0..<count).map {
    #"{"type":"\#($0 & 1 == 0 ? "increment" : "decrement")""# + String(repeating: " ", count: $0 % 200) + "}"
  }
}

/// The same with the type's first letter written as an escape (`\u0069ncrement`): the in-place
/// scan leaves these to the full parse (`FlatObject`), the miss path of the scan; the generated
/// decoder still builds them.
func distinctCounterActionsParsed(_ count: Int) -> [String] {
  (0..<count).map {
    let type = $0 & 1 == 0 ? #"\u0069ncrement"# : #"\u0064ecrement"#
    return #"{"type":"\#(type)""# + String(repeating: " ", count: $0 % 200) + "}"
  }
}

/// `count` levels `set` actions with different values, each already settled (left equals right),
/// so no feedback follows and the figure is the action's own.
func distinctLevelsActions(_ count: Int) -> [String] {
  (0..<count).map { #"{"type":"set","left":\#($0 % 1_000_000),"right":\#($0 % 1_000_000)}"# }
}

/// Each of `actions` through `PluginInstance.dispatch` on this thread: the ABI and the plugin.
func directDispatch(plugin: String, config: String = "{}", actions: [String]) throws -> Double {
  let target = SilentTarget()
  let instance = try InstanceFactory.inProcess.makeInstance(of: loadPlugin(plugin), config: config, target: target)
  try instance.start()
  // feature_abi.h: the lifecycle action comes first.
  _ = try instance.dispatch(#"{"type":"created"}"#)
  let elapsed = try seconds {
    for action in actions { _ = try instance.dispatch(action) }
  }
  try instance.stop()
  instance.destroy()
  return elapsed * 1e9 / Double(actions.count)
}

/// Each of `actions` queued in a `Store` over an in-process counter, until settled.
func storeDispatch(actions: [String]) throws -> Double {
  let store = try Store(plugin: loadPlugin("Counter"), observer: { _ in })
  try store.start()
  _ = store.waitUntilSettled(timeout: .seconds(60))
  let elapsed = seconds {
    for action in actions { store.send(action, source: .user) }
    _ = store.waitUntilSettled(timeout: .seconds(600))
  }
  let state = store.perform { try? $0.snapshot() }
  precondition(state?.contains(#""clicks":\#(actions.count)"#) == true, "every action must be applied")
  store.stop()
  return elapsed * 1e9 / Double(actions.count)
}
