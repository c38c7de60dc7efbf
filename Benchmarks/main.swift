import CounterFeature
import FeatureJSON
import Foundation
import HostKit

// Prints one line per measurement, `name: value unit`, each the median of several rounds.
// Run with: swift build -c release && .build/release/Benchmarks [NAME-PREFIX...]

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
    func instanceEmitted(_ json: String, origin: EmitOrigin) {}
    func instanceLogged(level: LogLevel, message: String) {}
    func instanceEffectBegan() {}
    func instanceEffectEnded() {}
  }
  let target = Target()
  let instance = try InstanceFactory.inProcess.makeInstance(of: loadPlugin("Counter"), config: "{}", target: target)
  try instance.start()
  // feature_abi.h: the lifecycle action comes first.
  _ = try instance.dispatch(#"{"type":"created"}"#)
  let increment = #"{"type":"increment"}"#
  let elapsed = try seconds {
    for _ in 0..<actions { _ = try instance.dispatch(increment) }
  }
  try instance.stop()
  return elapsed * 1e9 / Double(actions)
}

/// A `pageLoaded` of 10 URLs applied to a kittens state of `urls` URLs, through the ABI: the
/// reducer appends the page, so the cost must be the page's, not the state's. Each action first
/// puts the instance back into loading the next page (`loadMore`), so every `pageLoaded` is
/// applied; the figure is the pair, per `pageLoaded`. Replayed with `reduce`: no effect starts.
func kittensPageLoaded(urls: Int, pages: Int) throws -> Double {
  let list = (0..<urls).map { JSONValue.string("https://cdn2.thecatapi.com/images/k\($0).jpg") }
  let state = JSONValue.object([
    "urls": .array(list), "isLoading": false, "loadingOffset": 0, "nextOffset": .number(.int(Int64(urls))),
    "endReached": false,
  ]).serialized()
  let target = SilentTarget()
  // An endpoint that never answers in time: the load `loadMore` starts is cancelled at stop.
  let instance = try InstanceFactory.inProcess.makeInstance(
    of: loadPlugin("Kittens"), config: #"{"endpoint":"file:///nonexistent/catalog.json"}"#, target: target)
  try instance.restore(state)
  try instance.start()
  // feature_abi.h: the lifecycle action comes first; this instance was restored.
  _ = try instance.dispatch(#"{"type":"restored"}"#)
  let page = (0..<10).map { #""https://cdn2.thecatapi.com/images/p\#($0).jpg""# }.joined(separator: ",")
  let actions = (0..<1_000).map { index in
    #"{"type":"pageLoaded","offset":\#(urls + index * 10),"urls":[\#(page)]}"#
  }
  let loadMore = #"{"type":"loadMore"}"#
  var changed = 0
  var elapsed = 0.0
  // The state grows by a page an action: restored (untimed) every 1,000 pages, it stays within
  // 10,000 URLs of its size. Not more often: a restored list has no spare capacity, so its first
  // append copies it whole, a cost that doubling capacity spreads over the appends after it.
  for batch in stride(from: 0, to: pages, by: 1_000) {
    if batch > 0 { try instance.restore(state) }
    elapsed += try seconds {
      for index in 0..<min(1_000, pages - batch) {
        _ = try instance.reduce(loadMore)
        if try instance.reduce(actions[index]) { changed += 1 }
      }
    }
  }
  precondition(changed == pages, "every page must be applied, \(changed) of \(pages) were")
  try instance.stop()
  instance.destroy()
  return elapsed * 1e9 / Double(pages)
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

/// `host run counter` fed `lines` increments through a pipe, as a whole process: parsing each
/// line, the store, the journal, the final view.
func hostPipe(lines: Int, isolation: String = "none") throws -> Double {
  var process = ChildProcess("\(folder)/host", arguments: ["run", "counter", "--isolation", isolation])
  process.standardInput = .bytes(Array(String(repeating: "increment\n", count: lines).utf8))
  return try timedProcess(process) * 1e9 / Double(lines)
}

/// `host run counter` given one piped `increment`, as a whole process, in milliseconds: start-up
/// (with a worker's, isolated), one action, the final view, exit.
func hostStart(isolation: String) throws -> Double {
  try hostPipe(lines: 1, isolation: isolation) / 1e6
}

/// `host.pipe` with each line the action's JSON: the word table's miss path, every line parsed.
func hostPipeJSON(lines: Int) throws -> Double {
  var process = ChildProcess("\(folder)/host", arguments: ["run", "counter", "--isolation", "none"])
  process.standardInput = .bytes(Array(String(repeating: #"{"type":"increment"}"# + "\n", count: lines).utf8))
  return try timedProcess(process) * 1e9 / Double(lines)
}

/// `host list` as a person runs it: a whole process that discovers and loads every plugin.
func hostList() throws -> Double {
  try timedProcess(ChildProcess("\(folder)/host", arguments: ["list"])) * 1000
}

/// `/bin/true`, started and waited for as the host is above: what spawning a process costs.
func spawnTrue() throws -> Double {
  try timedProcess(ChildProcess("/bin/true")) * 1000
}

/// Seconds from spawn to reaped, output discarded; the child must exit 0.
func timedProcess(_ template: ChildProcess) throws -> Double {
  var process = template
  process.standardOutput = .discard
  process.standardError = .discard
  var result: ChildResult?
  let elapsed = try seconds { result = try process.run(timeout: .seconds(600)) }
  precondition(result?.termination == .exited(0), "\(process.executable) \(result?.termination.description ?? "")")
  return elapsed
}

if CommandLine.arguments.dropFirst().first == childPeakArgument {
  measureChildPeak(Array(CommandLine.arguments.dropFirst(2)))
}
if CommandLine.arguments.dropFirst().first == sprayArgument {
  sprayChild(Array(CommandLine.arguments.dropFirst(2)))
}

let rounds = 5
/// Actions a round; `BENCHMARK_ACTIONS` lowers it for a run under valgrind.
let actions = environment("BENCHMARK_ACTIONS").flatMap { Int($0) } ?? 200_000
if wanted("counter.dispatch") && !selected.contains(where: { $0.hasPrefix("counter.dispatch.") }) {
  report("counter.dispatch", median(try (0..<rounds).map { _ in try counterDispatch(actions: actions) }), "ns/action")
}
if wanted("counter.dispatch.direct") {
  report(
    "counter.dispatch.direct", median(try (0..<rounds).map { _ in try counterDispatchDirect(actions: actions) }),
    "ns/action")
}
if wanted("counter.dispatch.distinct") || wanted("counter.dispatch.distinct.store") {
  let distinct = distinctCounterActions(actions)
  if wanted("counter.dispatch.distinct") && !selected.contains("counter.dispatch.distinct.store") {
    report(
      "counter.dispatch.distinct",
      median(try (0..<rounds).map { _ in try directDispatch(plugin: "Counter", actions: distinct) }), "ns/action")
  }
  if wanted("counter.dispatch.distinct.store") {
    report(
      "counter.dispatch.distinct.store", median(try (0..<rounds).map { _ in try storeDispatch(actions: distinct) }),
      "ns/action")
  }
}
if wanted("counter.dispatch.parsed") {
  let parsed = distinctCounterActionsParsed(actions)
  report(
    "counter.dispatch.parsed",
    median(try (0..<rounds).map { _ in try directDispatch(plugin: "Counter", actions: parsed) }), "ns/action")
}
if wanted("levels.dispatch.distinct") {
  let distinct = distinctLevelsActions(actions)
  report(
    "levels.dispatch.distinct",
    median(
      try (0..<rounds).map { _ in try directDispatch(plugin: "Levels", config: #"{"interval":0}"#, actions: distinct) }),
    "ns/action")
}
if wanted("baseline.inprocess") {
  report("baseline.inprocess", median((0..<rounds).map { _ in baselineInProcess(actions: actions * 10) }), "ns/action")
}
if wanted("kittens.pageLoaded") {
  // Small and large alternate within each round, so both see the same machine load.
  let pairs = try (0..<rounds).map { _ in
    (try kittensPageLoaded(urls: 10, pages: 2_000), try kittensPageLoaded(urls: 100_000, pages: 2_000))
  }
  report("kittens.pageLoaded.small", median(pairs.map(\.0)), "ns/action")
  report("kittens.pageLoaded.large", median(pairs.map(\.1)), "ns/action")
  report("kittens.pageLoaded.ratio", median(pairs.map { $0.1 / $0.0 }), "x")
}
if wanted("kittens.startup") {
  // From the catalog file (no HTTP stack) and over http (the stack mapped at the first fetch).
  let startup = try kittensStartup(rounds: rounds * 4)
  report("kittens.startup.file", startup.file, "ms")
  report("kittens.startup.http", startup.http, "ms")
  report("kittens.startup.http/file", startup.ratio, "x")
  report("kittens.startup.file.rss", startup.fileRSS, "MB")
  report("kittens.startup.http.rss", startup.httpRSS, "MB")
}
if wanted("levels.settle") {
  report("levels.settle", median(try (0..<rounds * 2).map { _ in try levelsSettle() }), "ms")
}
if wanted("journal.append") {
  report("journal.append", median((0..<rounds).map { _ in journalAppend(actions: actions) }), "ns/action")
}
if wanted("session.restore") {
  report("session.restore", median((0..<3).map { _ in sessionRestore(actions: 1_000_000) }), "ms")
}
if wanted("devtools.push") {
  let latency = try devtoolsPushLatency(samples: 400)
  report("devtools.push.median", latency.median, "µs")
  report("devtools.push.p95", latency.p95, "µs")
}
if wanted("devtools.open") {
  report("devtools.open.1M", median(try (0..<3).map { _ in try devtoolsOpen(actions: 1_000_000) }), "ms")
}
if wanted("devtools.skip") {
  report("devtools.skip.1M", median(try (0..<3).map { _ in try devtoolsSkip(actions: 1_000_000) }), "ms")
}
if wanted("devtools.dispatch") {
  // Without a hub, with one and no page, with a page reading: alternated within each round.
  let rounds = try (0..<rounds).map { _ in
    (
      try devtoolsDispatch(actions: actions, hub: nil, reading: false),
      try devtoolsDispatch(actions: actions, hub: DevtoolsHub(), reading: false),
      try devtoolsDispatch(actions: actions, hub: DevtoolsHub(), reading: true)
    )
  }
  report("devtools.dispatch.none", median(rounds.map(\.0)), "ns/action")
  report("devtools.dispatch.closed", median(rounds.map(\.1)), "ns/action")
  report("devtools.dispatch.closed.ratio", median(rounds.map { $0.1 / $0.0 }), "x")
  report("devtools.dispatch.open", median(rounds.map(\.2)), "ns/action")
  report("devtools.dispatch.open.ratio", median(rounds.map { $0.2 / $0.0 }), "x")
}
if wanted("counter.dispatch.isolated") {
  // In process and isolated alternate within each round, so both see the same machine load,
  // each first in every other round; fifteen rounds (a round takes 0.15 s): with five, all in
  // process first, the ratio read 0.80 to 1.70 x from run to run on this shared machine.
  let pairs = try alternating(
    max(rounds, 15), { try counterDispatch(actions: actions) }, { try counterDispatchIsolated(actions: actions) })
  // The in-process half of the pairs, the ratio's denominator.
  report("counter.dispatch.inprocess", median(pairs.map(\.0)), "ns/action")
  report("counter.dispatch.isolated", median(pairs.map(\.1)), "ns/action")
  report("counter.dispatch.isolated.ratio", median(pairs.map { $0.1 / $0.0 }), "x")
}
if wanted("isolated.roundtrip") {
  report("isolated.roundtrip", median(try (0..<rounds).map { _ in try isolatedRoundtrip(actions: 20_000) }), "ns/call")
}
if wanted("worker.loss") {
  // Target: 50 ms, every time: the worst of the rounds is reported beside the median.
  let between = try (0..<20).map { _ in try workerLossBetweenCalls() }
  report("worker.loss.between", median(between), "ms")
  report("worker.loss.between.max", between.max() ?? 0, "ms")
  let inCall = try (0..<20).map { _ in try workerLossInCall() }
  report("worker.loss.incall", median(inCall), "ms")
  report("worker.loss.incall.max", inCall.max() ?? 0, "ms")
}
if wanted("worker.start") {
  // With and without the sandbox alternate within each round, so both see the same machine load.
  let pairs = try (0..<max(rounds, 15)).map { _ in
    (try workerStartAndStop(sandbox: .off), try workerStartAndStop(sandbox: SandboxSettings()))
  }
  report("worker.start", median(pairs.map(\.0.start)), "ms")
  report("worker.start.sandboxed", median(pairs.map(\.1.start)), "ms")
  report("worker.start.sandboxed.ratio", median(pairs.map { $0.1.start / $0.0.start }), "x")
  report("worker.stop", median(pairs.map(\.0.stop)), "ms")
  report("worker.stop.sandboxed", median(pairs.map(\.1.stop)), "ms")
  // A call costs the same either way: the filters judge only the calls a plugin makes of the
  // kernel, and a dispatch makes none.
  let unsandboxed = InstanceFactory.worker(executable: "\(folder)/host", callTimeout: 10, sandbox: .off)
  let calls = try (0..<rounds).map { _ in
    (try isolatedRoundtrip(actions: 20_000, factory: unsandboxed), try isolatedRoundtrip(actions: 20_000))
  }
  report("isolated.roundtrip.unsandboxed", median(calls.map(\.0)), "ns/call")
  report("isolated.roundtrip.sandboxed", median(calls.map(\.1)), "ns/call")
  report("isolated.roundtrip.sandboxed.ratio", median(calls.map { $0.1 / $0.0 }), "x")
}
if wanted("host.start") {
  // In process and isolated alternate within each round, so both see the same machine load.
  let pairs = try (0..<max(rounds, 15)).map { _ in
    (try hostStart(isolation: "none"), try hostStart(isolation: "process"))
  }
  report("host.start.inprocess", median(pairs.map(\.0)), "ms")
  report("host.start.isolated", median(pairs.map(\.1)), "ms")
  report("host.start.isolated.ratio", median(pairs.map { $0.1 / $0.0 }), "x")
}
if wanted("host.pipe") {
  // In process and isolated alternate within each round, so both see the same machine load,
  // each first in every other round; fifteen rounds (a round takes 0.15 s): the median of five
  // ratios moved by 0.1 from run to run on this shared machine.
  let pairs = try alternating(
    max(rounds, 15), { try hostPipe(lines: 100_000) }, { try hostPipeIsolated(lines: 100_000) })
  report("host.pipe", median(pairs.map(\.0)), "ns/line")
  report("host.pipe.json", median(try (0..<rounds).map { _ in try hostPipeJSON(lines: 100_000) }), "ns/line")
  report("host.pipe.isolated", median(pairs.map(\.1)), "ns/line")
  report("host.pipe.isolated.ratio", median(pairs.map { $0.1 / $0.0 }), "x")
}
if wanted("explore.step") {
  // Beside host.pipe, alternating within each round: the issue's target is at most 3x a piped line.
  let pairs = try (0..<rounds).map { _ in (try hostPipe(lines: 100_000), try exploreStep(steps: 100_000)) }
  report("explore.step", median(pairs.map(\.1)), "ns/step")
  report("explore.step.ratio", median(pairs.map { $0.1 / $0.0 }), "x")
}
if wanted("explore.probe") {
  // The probe cache's miss and hit, beside each other.
  let pairs = try (0..<rounds).map { _ in try exploreProbe(probes: 20_000) }
  report("explore.probe.new", median(pairs.map(\.new)), "ns/probe")
  report("explore.probe.seen", median(pairs.map(\.seen)), "ns/probe")
  report("explore.probe.action", median(pairs.map(\.action)), "ns/action")
}
if wanted("explore.travel") {
  // A travel from a noted state beside the replay it saves.
  let pairs = try (0..<rounds).map { _ in try exploreTravel(travels: 200) }
  report("explore.travel.noted", median(pairs.map(\.noted)), "ns/travel")
  report("explore.travel.replayed", median(pairs.map(\.replayed)), "ns/travel")
}
if wanted("explore.shrink") {
  // The issue's target: shrinking a 1,000-step failure takes at most 10 s.
  report("explore.shrink", median(try (0..<rounds).map { _ in try exploreShrink() }), "s")
}
if wanted("host.pipe.rss") {
  report("host.pipe.rss", median(try (0..<3).map { _ in try pipePeakRSS(lines: 1_000_000) }), "MB")
}
if wanted("kittens.memory") {
  // In process and in a worker alternate within each round.
  let runs = try (0..<3).map { _ in
    (
      try kittensSessionPeakRSS(urls: 100_000, isolation: "none"),
      try kittensSessionPeakRSS(urls: 100_000, isolation: "process"), try kittensWorkerPeakRSS(urls: 100_000)
    )
  }
  report("kittens.memory.session", median(runs.map(\.0)), "MB")
  report("kittens.memory.session.isolated", median(runs.map(\.1)), "MB")
  report("kittens.memory.worker", median(runs.map(\.2)), "MB")
}
if wanted("host.list") {
  report("host.list", median(try (0..<rounds * 2).map { _ in try hostList() }), "ms")
}
if wanted("spawn.true") {
  report("spawn.true", median(try (0..<rounds * 2).map { _ in try spawnTrue() }), "ms")
}
if wanted("host.version") || wanted("host.list.warm") || wanted("host.list.cold") {
  let list = try hostListRegistry(rounds: rounds * 4)
  report("host.version", list.version, "ms")
  report("host.list.warm", list.warm, "ms")
  report("host.list.cold", list.cold, "ms")
  report("host.list.warm/host.version", list.ratio, "x")
}
if wanted("host.run.counter") {
  let run = try hostRunCounterRegistry(rounds: rounds * 4)
  report("host.run.counter.all", run.all, "ms")
  report("host.run.counter.only", run.only, "ms")
  report("host.run.counter.all/only", run.ratio, "x")
}
if wanted("reload.counter") {
  report("reload.counter", try reloadCounter(reloads: 20, workers: true), "ms")
  report("reload.counter.inprocess", try reloadCounter(reloads: 20, workers: false), "ms")
}
if wanted("build.hash") {
  // Every run hashes its plugin file while it starts (a reload tells builds apart by it).
  let file = "\(folder)/libCounter.so"
  let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
  let times = (0..<rounds * 4).map { _ in seconds { precondition(BuildFile.hash(file) != nil, "\(file) is readable") } }
  report("build.hash", median(times) * 1000, "ms")
  report("build.hash.size", Double(size) / 1_000_000, "MB")
}
if wanted("image") { try imageBenchmarks(rounds: rounds) }
if wanted("ipc.floor") {
  // The futex floor and the worker's round trip take turns in blocks of about a millisecond; the
  // ratio is the worker's over the floor, block by block (issue 25's target: at most 3).
  let blocks = try ipcFloorBlocks(101, roundTrips: 2_000)
  report("ipc.floor.futex", median(blocks.map(\.floor)), "ns/roundtrip")
  report("ipc.floor.socket", median((0..<rounds).map { _ in ipcFloorSocket(roundTrips: 5_000) }), "ns/roundtrip")
  // The channel's C alone: what the transport costs before Swift and the plugin.
  report("ipc.channel", median(blocks.map(\.channel)), "ns/roundtrip")
  report("ipc.channel.floor.ratio", median(blocks.map { $0.channel / $0.floor }), "x")
  report("isolated.roundtrip.blocks", median(blocks.map(\.worker)), "ns/call")
  report("isolated.roundtrip.floor.ratio", median(blocks.map { $0.worker / $0.floor }), "x")
  if environment("BENCHMARK_BLOCKS") != nil {
    for block in blocks {
      print(
        String(
          format: "  block %.0f %.0f %.0f %.2f", block.floor, block.channel, block.worker, block.worker / block.floor))
    }
  }
}
if wanted("replay.") {
  let session = try recordCounterSession(actions: 100_000)
  defer { try? FileManager.default.removeItem(atPath: session.stateHome) }
  let pairs = try (0..<3).map { _ in
    (
      try hostReplay(journal: session.journal, isolation: "none"),
      try hostReplay(journal: session.journal, isolation: "process")
    )
  }
  report("replay.inprocess", median(pairs.map(\.0)) * 1000, "ms")
  report("replay.isolated", median(pairs.map(\.1)) * 1000, "ms")
  report("replay.isolated.ratio", median(pairs.map { $0.1 / $0.0 }), "x")
}
if wanted("spray.") {
  // 8 threads of the plugin emitting 100,000 actions each, in process and isolated alternately.
  let fixture = try buildFixturePlugin()
  defer { try? FileManager.default.removeItem(atPath: fixture.folder) }
  let pairs = try (0..<3).map { _ in
    (
      try spray(library: fixture.library, isolated: false, threads: 8, per: 100_000),
      try spray(library: fixture.library, isolated: true, threads: 8, per: 100_000)
    )
  }
  report("spray.inprocess", median(pairs.map(\.0.seconds)), "s")
  report("spray.isolated", median(pairs.map(\.1.seconds)), "s")
  report("spray.isolated.ratio", median(pairs.map { $0.1.seconds / $0.0.seconds }), "x")
  report("spray.inprocess.rss", median(pairs.map(\.0.megabytes)), "MB")
  report("spray.isolated.rss", median(pairs.map(\.1.megabytes)), "MB")
  report("spray.isolated.rss.ratio", median(pairs.map { $0.1.megabytes / $0.0.megabytes }), "x")
}
if wanted("idle.isolated.cpu") {
  report("idle.isolated.cpu", try idleCPU(feature: "counter"), "ms/10s")
}
if wanted("idle.levels.cpu") {
  // Levels regulating from far apart: a step every 50 ms for far longer than the window.
  report("idle.levels.cpu", try idleCPU(feature: "levels", input: "set left=-2000 right=2000\n"), "ms/10s")
}
