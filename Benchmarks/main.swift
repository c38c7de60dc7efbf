import CounterFeature
import FeatureJSON
import Foundation
import HostKit

// Prints one line per measurement, `name: value unit`, each the median of several rounds.
// Run with: swift build -c release && .build/release/Benchmarks [NAME-PREFIX...]

guard let folder = PluginDiscovery.buildFolder else { fatalError("cannot find the build folder") }

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let selected = Array(CommandLine.arguments.dropFirst())

/// Whether `name` was asked for (all are, when no name is given).
func wanted(_ name: String) -> Bool { selected.isEmpty || selected.contains { name.hasPrefix($0) } }

func report(_ name: String, _ value: Double, _ unit: String) {
  print("\(name): \(value < 100 ? String(format: "%.1f", value) : String(Int(value.rounded()))) \(unit)")
}

func loadPlugin(_ name: String) -> LoadedPlugin {
  do {
    return try PluginLoader.load("\(folder)/lib\(name).so")
  } catch {
    FileHandle.standardError.write(Data("error: \(error)\nhelp: run 'swift build -c release' first\n".utf8))
    exit(1)
  }
}

/// One action through HostKit, the ABI and the plugin: queued, applied, settled. No terminal output.
func counterDispatch(actions: Int) throws -> Double {
  let store = try Store(plugin: loadPlugin("Counter"), observer: { _ in })
  try store.start()
  _ = store.waitUntilSettled(timeout: .seconds(60))
  let increment = #"{"type":"increment"}"#
  let elapsed = seconds {
    for _ in 0..<actions { store.send(increment, source: .user) }
    _ = store.waitUntilSettled(timeout: .seconds(600))
  }
  store.stop()
  return elapsed * 1e9 / Double(actions)
}

/// One action through the ABI and the plugin only, called on this thread: the store's share is
/// counter.dispatch minus this.
func counterDispatchDirect(actions: Int) throws -> Double {
  final class Target: InstanceCallbackTarget {
    func instanceEmitted(_ json: UnsafePointer<CChar>, origin: Int32) {}
    func instanceLogged(level: Int32, message: UnsafePointer<CChar>) {}
    func instanceEffectBegan() {}
    func instanceEffectEnded() {}
  }
  let target = Target()
  let instance = try PluginInstance(plugin: loadPlugin("Counter"), config: "{}", target: target)
  try instance.start()
  let increment = #"{"type":"increment"}"#
  let elapsed = try seconds {
    for _ in 0..<actions { _ = try instance.dispatch(increment) }
  }
  try instance.stop()
  return elapsed * 1e9 / Double(actions)
}

/// The same reducer, called directly in Swift.
func baselineInProcess(actions: Int) -> Double {
  let feature = CounterFeature()
  var state = feature.initialState()
  let elapsed = seconds {
    for index in 0..<actions {
      _ = feature.reduce(into: &state, action: index & 1 == 0 ? .increment : .decrement)
    }
  }
  precondition(state.clicks == actions, "the reducer must run")
  return elapsed * 1e9 / Double(actions)
}

/// The levels run from 10/20 with a zero interval, from start until settled at 15/15.
func levelsSettle() throws -> Double {
  let store = try Store(plugin: loadPlugin("Levels"), config: #"{"interval":0}"#, observer: { _ in })
  let elapsed = try seconds {
    try store.start()
    _ = store.waitUntilSettled(timeout: .seconds(60))
  }
  let state = store.perform { try? $0.snapshot() }
  precondition(state == #"{"left":15,"right":15}"#, "levels must settle at 15/15, got \(state ?? "nothing")")
  store.stop()
  return elapsed * 1000
}

/// `host list` as a person runs it: a whole process that discovers and loads every plugin.
func hostList() throws -> Double {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "\(folder)/host")
  process.arguments = ["list"]
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  return try seconds {
    try process.run()
    process.waitUntilExit()
  } * 1000
}

let rounds = 5
let actions = 200_000
if wanted("counter.dispatch") && !selected.contains("counter.dispatch.direct") {
  report("counter.dispatch", median(try (0..<rounds).map { _ in try counterDispatch(actions: actions) }), "ns/action")
}
if wanted("counter.dispatch.direct") {
  report(
    "counter.dispatch.direct", median(try (0..<rounds).map { _ in try counterDispatchDirect(actions: actions) }),
    "ns/action")
}
if wanted("baseline.inprocess") {
  report("baseline.inprocess", median((0..<rounds).map { _ in baselineInProcess(actions: actions * 10) }), "ns/action")
}
if wanted("levels.settle") {
  report("levels.settle", median(try (0..<rounds * 2).map { _ in try levelsSettle() }), "ms")
}
if wanted("host.list") {
  report("host.list", median(try (0..<rounds * 2).map { _ in try hostList() }), "ms")
}
