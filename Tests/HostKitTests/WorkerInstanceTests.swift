import FeatureABI
import FeatureJSON
import FeatureTesting
import Foundation
import Synchronization
import Testing

@testable import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// Records every callback an instance makes, in order.
final class CallbackLog: InstanceCallbackTarget {
  /// Locked, not Mutex: the callbacks come from the listener and the caller, and ThreadSanitizer
  /// (Tests/Sanitizers/run thread) does not see a Mutex handed over between them.
  let entries = Locked<[String]>([])
  private let nextTimer = Atomic<UInt64>(100)

  var all: [String] { entries.withLock { $0 } }

  func instanceEmitted(_ json: String, origin: EmitOrigin) { entries.withLock { $0.append("emit \(origin) \(json)") } }
  func instanceLogged(level: LogLevel, message: String) { entries.withLock { $0.append("log \(level) \(message)") } }
  func instanceEffectBegan() { entries.withLock { $0.append("began") } }
  func instanceEffectEnded() { entries.withLock { $0.append("ended") } }
  func instanceEmittedStep(_ json: String) { entries.withLock { $0.append("step \(json)") } }
  func instanceScheduled(after nanoseconds: UInt64, actions: String, origin: EmitOrigin) -> UInt64 {
    entries.withLock { $0.append("schedule \(nanoseconds) \(origin) \(actions)") }
    return nextTimer.add(1, ordering: .relaxed).oldValue
  }
  func instanceCancelledTimer(_ id: UInt64) { entries.withLock { $0.append("cancel \(id)") } }
}

/// One step of a script of calls, and what it gave, as text both kinds of instance must match.
struct ScriptedCall: Sendable, CustomTestStringConvertible {
  let name: String
  let call: @Sendable (any PluginInstance) throws -> String
  var testDescription: String { name }

  static func run(_ script: [ScriptedCall], on instance: any PluginInstance) -> [String] {
    script.map { step in
      do {
        return "\(step.name): \(try step.call(instance))"
      } catch let error as PluginCallError {
        return "\(step.name): error \(error.status) \(error.message)"
      } catch {
        return "\(step.name): \(error)"
      }
    }
  }
}

enum WorkerFixtures {
  static var settings: WorkerSettings { WorkerSettings(executable: HostProcess.executable, callTimeout: 10) }

  static func worker(
    _ path: String, config: String = "{}", target: any InstanceCallbackTarget, timeout: Double = 10
  ) throws -> WorkerInstance {
    try WorkerInstance(
      plugin: try PluginLoader.load(path), config: config, target: target,
      settings: WorkerSettings(executable: HostProcess.executable, callTimeout: timeout))
  }

  /// Whether process `pid` is gone (or a zombie nobody of ours will reap), waiting at most `bound`.
  static func isGone(_ pid: pid_t, within bound: Duration) -> Bool {
    let deadline = ContinuousClock.now + bound
    repeat {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
      // The state follows the command's closing parenthesis.
      if let close = stat.lastIndex(of: ")"), stat[stat.index(close, offsetBy: 2)] == "Z" { return true }
      // Polling /proc has no event to wait on; a short pause between looks bounds the cost.
      usleep(10_000)
    } while ContinuousClock.now < deadline
    return false
  }
}

@Suite("Worker instances")
struct WorkerInstanceTests {
  static let counterScript: [ScriptedCall] = [
    ScriptedCall(name: "dispatch-before-start") { "\(try $0.dispatch(#"{"type":"increment"}"#))" },
    ScriptedCall(name: "restore") {
      try $0.restore(#"{"clicks":2,"count":5}"#)
      return "ok"
    },
    ScriptedCall(name: "reduce") { "\(try $0.reduce(#"{"type":"decrement"}"#))" },
    ScriptedCall(name: "start") {
      try $0.start()
      return "ok"
    },
    ScriptedCall(name: "dispatch") { "\(try $0.dispatch(#"{"type":"increment"}"#))" },
    ScriptedCall(name: "dispatch-unknown") { "\(try $0.dispatch(#"{"type":"explode"}"#))" },
    ScriptedCall(name: "dispatch-not-json") { "\(try $0.dispatch(#"{"type":"#))" },
    ScriptedCall(name: "dispatch-batch") { instance in
      var results: [String] = []
      instance.dispatch([#"{"type":"increment"}"#, #"{"type":"nope"}"#, #"{"type":"decrement"}"#]) {
        results.append("\($0)")
      }
      return results.joined(separator: "; ")
    },
    ScriptedCall(name: "snapshot") { try $0.snapshot() },
    ScriptedCall(name: "restore-bad") {
      try $0.restore(#"{"count":"many"}"#)
      return "ok"
    },
    ScriptedCall(name: "render") { try $0.render() },
    ScriptedCall(name: "unicode") {
      try $0.restore(#"{"clicks":1,"count":1}"#)
      return try $0.snapshot()
    },
    ScriptedCall(name: "stop") {
      try $0.stop()
      return "ok"
    },
    ScriptedCall(name: "dispatch-after-stop") { "\(try $0.dispatch(#"{"type":"increment"}"#))" },
    ScriptedCall(name: "destroyed") {
      $0.destroy()
      return try $0.snapshot()
    },
  ]

  static let levelsScript: [ScriptedCall] = [
    ScriptedCall(name: "start") {
      try $0.start()
      return "ok"
    },
    ScriptedCall(name: "created") { "\(try $0.dispatch(#"{"type":"created"}"#))" },
    ScriptedCall(name: "set") { "\(try $0.dispatch(#"{"type":"set","left":3,"right":9}"#))" },
    ScriptedCall(name: "set-bad") { "\(try $0.dispatch(#"{"type":"set","left":"x"}"#))" },
    ScriptedCall(name: "snapshot") { try $0.snapshot() },
    ScriptedCall(name: "render") { try $0.render() },
    ScriptedCall(name: "stop") {
      try $0.stop()
      return "ok"
    },
  ]

  @Test(
    "a worker instance answers a script of calls exactly as the plugin in process does",
    arguments: [("Counter", counterScript), ("Levels", levelsScript)])
  func workerMatchesInProcess(_ library: String, _ script: [ScriptedCall]) throws {
    // given the same plugin in process and in a worker, levels paced by hand
    let path = PluginPaths.library(library)
    let config = library == "Levels" ? #"{"interval":60000}"# : "{}"
    let local = CallbackLog()
    let remote = CallbackLog()
    let inProcess = try InstanceFactory.inProcess.makeInstance(
      of: try PluginLoader.load(path), config: config, target: local)
    let isolated = try WorkerFixtures.worker(path, config: config, target: remote)
    // when the script runs on both
    let expected = ScriptedCall.run(script, on: inProcess)
    let actual = ScriptedCall.run(script, on: isolated)
    inProcess.destroy()
    isolated.destroy()
    // then every answer and every callback is the same
    #expect(actual == expected)
    #expect(remote.all == local.all)
  }

  @Test func callbacksFromTheWorkerArriveFromEveryThreadInOrderPerThread() throws {
    // given the fixture in a worker
    let log = CallbackLog()
    let instance = try WorkerFixtures.worker(try FixturePlugin.path(), target: log)
    try instance.start()
    // when it starts four effect threads of 50 emits each, a feedback, and a navigation step
    _ = try instance.dispatch(#"{"type":"burst","threads":4,"per":50}"#)
    _ = try instance.dispatch(#"{"type":"ping","limit":2}"#)
    _ = try instance.dispatch(#"{"type":"step","name":"next"}"#)
    // then (once every effect ended) all of them came back
    let deadline = ContinuousClock.now + .seconds(10)
    while log.all.filter({ $0 == "ended" }).count < 4 && ContinuousClock.now < deadline {
      _ = try instance.snapshot()
    }
    let entries = log.all
    #expect(entries.filter { $0 == "began" }.count == 4)
    #expect(entries.filter { $0 == "ended" }.count == 4)
    #expect(entries.filter { $0.hasPrefix("emit effect") && $0.contains("tick") }.count == 200)
    #expect(entries.contains(#"emit feedback {"type":"ping","limit":2}"#))
    #expect(entries.contains(#"step {"step":"next"}"#))
    for thread in 0..<4 {
      let numbers = entries.filter { $0.contains("\"thread\":\(thread),") }.compactMap { $0.split(separator: ":").last }
      #expect(numbers.count == 50)
      #expect(numbers.map { String($0.dropLast()) } == (1...50).map(String.init))
    }
    instance.destroy()
  }

  @Test func timersScheduledInTheWorkerReachTheStoreAndLevelsSettle() throws {
    // given levels in a worker with a zero interval, through a Store
    let events = Locked<[String]>([])
    let store = try Store(
      plugin: try PluginLoader.load(PluginPaths.library("Levels")), config: #"{"interval":0}"#,
      instances: .worker(WorkerFixtures.settings),
      observer: { event in if case .applied(_, let action, _, _) = event { events.withLock { $0.append(action) } } })
    // when it starts and settles
    try store.start()
    #expect(store.waitUntilSettled(timeout: .seconds(20)) == .settled)
    // then its timers fired through the host and it settled at 15/15
    #expect(store.perform { try? $0.snapshot() } == #"{"left":15,"right":15}"#)
    #expect(events.withLock { $0.count } > 2)
    #expect(store.pendingTimers == 0)
    store.stop()
  }

  @Test func theIdsOfTimersThatFiredAreLetGo() throws {
    // given the fixture in a worker through a Store
    let store = try Store(
      plugin: try PluginLoader.load(try FixturePlugin.path()), config: #"{"tag":"T"}"#,
      instances: .worker(WorkerFixtures.settings), observer: { _ in })
    try store.start()
    // when it schedules 200 timers, one after the other fired, none cancelled
    for _ in 0..<200 {
      store.send(#"{"type":"later"}"#, source: .user)
      #expect(store.waitUntilSettled(timeout: .seconds(60)) == .settled)
    }
    #expect(store.perform { try? $0.snapshot() }?.hasPrefix(#"{"count":200,"#) == true)
    // then the worker's side keeps few timer ids: the fired ones were let go
    let kept = store.perform { _ in (store.instance as? WorkerInstance)?.timersKept }
    #expect(kept != nil && kept! <= 65, "\(String(describing: kept))")
    store.stop()
  }

  @Test func aWorkerKilledWithSIGKILLMakesTheNextCallAndEveryLaterOneThrowSignalled() throws {
    // given a started counter in a worker
    let instance = try WorkerFixtures.worker(CounterLibrary.path, target: CallbackLog())
    try instance.start()
    // when its process is killed
    kill(instance.workerProcessID, SIGKILL)
    // then the next call, and the ones after, say how it was lost
    let first = #expect(throws: PluginCallError.self) { try instance.dispatch(#"{"type":"increment"}"#) }
    #expect(first?.loss == .signalled(SIGKILL))
    #expect(first?.message.contains("crashed (signal 9") == true)
    let later = #expect(throws: PluginCallError.self) { try instance.snapshot() }
    #expect(later?.loss == .signalled(SIGKILL))
    var batch: [PluginCallError?] = []
    instance.dispatch([#"{"type":"increment"}"#, #"{"type":"increment"}"#]) {
      if case .failure(let error) = $0 { batch.append(error) } else { batch.append(nil) }
    }
    #expect(batch.map { $0?.loss } == [.signalled(SIGKILL), .signalled(SIGKILL)])
    instance.destroy()
  }

  @Test func aCallThatHangsKillsTheWorkerWithinTheCallTimeout() throws {
    // given the hanging fixture in a worker with a half-second call timeout
    let path = try FixturePlugin.path(["FIXTURE_HANG_IN_DISPATCH"], name: "hang")
    let instance = try WorkerFixtures.worker(path, target: CallbackLog(), timeout: 0.5)
    try instance.start()
    let pid = instance.workerProcessID
    // when a dispatch never returns
    let began = ContinuousClock.now
    let error = #expect(throws: PluginCallError.self) { try instance.dispatch(#"{"type":"hang"}"#) }
    // then the call gave up after the timeout, killed the worker and says so
    #expect(ContinuousClock.now - began < .seconds(5))
    #expect(error?.loss == .unresponsive(call: "dispatch", seconds: 0.5))
    #expect(error?.message.contains("did not answer dispatch within 0.5 s") == true)
    #expect(WorkerFixtures.isGone(pid, within: .seconds(5)))
    #expect(throws: PluginCallError.self) { try instance.render() }
    instance.destroy()
  }

  @Test func destroyEndsAndReapsTheWorkerLeavingNoZombie() throws {
    // given a worker
    let instance = try WorkerFixtures.worker(CounterLibrary.path, target: CallbackLog())
    let pid = instance.workerProcessID
    #expect(kill(pid, 0) == 0)
    // when it is destroyed
    instance.destroy()
    // then it was reaped: it is no child of ours any more, and no process has its pid
    var status: Int32 = 0
    #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD)
    #expect(kill(pid, 0) == -1)
    // and later calls are lifecycle errors
    let error = #expect(throws: PluginCallError.self) { try instance.snapshot() }
    #expect(error?.isLifecycle == true)
  }

  @Test func theWorkerSeesOnlyDescriptorsZeroToFourAndACleanEnvironment() throws {
    // given an extra descriptor open without close-on-exec in the host
    let leaked = open("/dev/null", O_RDONLY)
    defer { close(leaked) }
    // when a worker starts
    let instance = try WorkerFixtures.worker(CounterLibrary.path, target: CallbackLog())
    let probe = try JSONValue.parse(try instance.probe())
    instance.destroy()
    // then it has stdin, stdout, stderr, its socket and its sandbox note pipe, then only what its
    // sandbox opened for itself, and only the variables it may have: none of the host's others
    // (PWD, SHLVL, ...)
    #expect(probe["fds"] == [0, 1, 2, 3, 4, 5, 6, 7])
    let pid = instance.workerProcessID
    let links = probe["links"]?.arrayValue?.compactMap(\.stringValue) ?? []
    #expect(Array(links.dropFirst(5)) == ["/proc/\(pid)/statm", "/proc/\(pid)/mem", "anon_inode:seccomp notify"])
    let names = Set(probe["env"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    // The sandbox points the worker's temporary and XDG homes at its private folder.
    let allowed = Set(WorkerEnvironment.cleaned(ChildProcess.currentEnvironment).keys).union([
      "TMPDIR", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
    ])
    #expect(names == allowed)
    #expect(ChildProcess.currentEnvironment.keys.contains { !allowed.contains($0) })
    #expect(probe["pid"] == .number(.int(Int64(instance.workerProcessID))))
  }

  @Test(
    "the environment a worker gets",
    arguments: [
      ("kept", ["PATH": "/bin", "LC_ALL": "C", "XDG_STATE_HOME": "/s", "KITTENS_ENDPOINT": "file:///k"], 5),
      ("dropped", ["SECRET_TOKEN": "x", "PWD": "/", "SSH_AUTH_SOCK": "/tmp/a"], 1),
      ("asked-for", ["FEATUREHOST_WORKER_ENV": "MY_A:MY_B", "MY_A": "1", "MY_B": "2", "MY_C": "3"], 4),
    ])
  func workerEnvironment(_ id: String, _ environment: [String: String], _ kept: Int) {
    // (the count includes SWIFT_BACKTRACE, which a worker always gets)
    #expect(WorkerEnvironment.cleaned(environment).count == kept, "\(id)")
  }

  @Test func aWorkersCrashPrintsNoRuntimeBacktraceUnlessAskedFor() {
    #expect(WorkerEnvironment.cleaned([:])["SWIFT_BACKTRACE"] == "enable=no")
    #expect(WorkerEnvironment.cleaned(["SWIFT_BACKTRACE": "enable=yes"])["SWIFT_BACKTRACE"] == "enable=yes")
  }

  /// A host running counter isolated from a pipe, one action applied, and its worker.
  static func isolatedCounter() throws -> (host: LiveHost, workers: [pid_t]) {
    let host = try LiveHost(["run", "counter", "--isolation", "process"])
    host.send("increment\n:state\n")
    _ = try host.read(through: #"{"clicks":1,"count":1}"#)
    return (host, children(of: host.child.pid))
  }

  @Test func aPipedRunsWorkerLeavesWhenTheHostEnds() throws {
    // given a host running counter isolated from a pipe, its worker started
    let (host, workers) = try Self.isolatedCounter()
    #expect(workers.count == 1)
    // when the input ends and the host exits (without waiting for its worker's exit)
    host.child.closeInput()
    #expect(host.waitForExit() == 0)
    // then the worker is gone as well
    for worker in workers { #expect(WorkerFixtures.isGone(worker, within: .seconds(5))) }
  }

  /// The children of every thread of process `pid` (workers are started from the host's main or
  /// spawner thread).
  static func children(of pid: pid_t) -> [pid_t] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/children", encoding: .utf8) }
      .joined(separator: " ").split(separator: " ").compactMap { pid_t($0) }
  }

  @Test func aWorkerDiesWithItsHost() throws {
    // given a host running counter isolated, its worker started
    let (host, workers) = try Self.isolatedCounter()
    #expect(workers.count == 1)
    // when the host's process group is killed with SIGKILL (no chance to clean up; the worker
    // has a group of its own)
    host.kill()
    // then the worker is gone too
    for worker in workers { #expect(WorkerFixtures.isGone(worker, within: .seconds(5))) }
  }
}
