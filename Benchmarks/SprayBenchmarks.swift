import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

// Many threads of a plugin emitting at once (the tests' C fixture, `burst`), through a real
// Store until every emitted action is applied: in process and in a worker. Each run is a fresh
// copy of this executable, so its peak memory is the run's own.

/// The argument that makes this executable the spraying copy.
let sprayArgument = "__spray"

/// The package's root folder, from this file's path.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path

/// Builds Tests/Fixtures/fixture_plugin.c as the tests do (FeatureTesting's FixturePlugin), into
/// a fresh folder; returns the folder (to remove) and the library's path.
func buildFixturePlugin() throws -> (folder: String, library: String) {
  var template = Array((NSTemporaryDirectory() + "featurehost-bench-XXXXXX").utf8CString)
  guard let made = mkdtemp(&template) else { throw HostError("mkdtemp failed: errno \(errno)") }
  let folder = String(cString: made)
  let library = "\(folder)/libfixture.so"
  let result = try ChildProcess(
    "cc",
    arguments: [
      "-shared", "-fPIC", "-O1", "-I", "\(packageRoot)/Sources/FeatureABI/include", "-o", library,
      "\(packageRoot)/Tests/Fixtures/fixture_plugin.c", "-lpthread",
    ]
  ).run(timeout: .seconds(120))
  guard result.termination == .exited(0) else { throw HostError("cc failed: \(result.errorText)") }
  return (folder, library)
}

/// One spray in a fresh copy of this executable: `threads` threads each emitting `per` actions.
/// Returns seconds from the `burst` to the last action applied, and the peak RSS in MB of the
/// process plus, isolated, its worker's.
func spray(library: String, isolated: Bool, threads: Int, per: Int) throws -> (seconds: Double, megabytes: Double) {
  var process = ChildProcess(
    "\(folder)/Benchmarks",
    arguments: [sprayArgument, library, isolated ? "worker" : "none", String(threads), String(per)])
  process.standardError = .discard
  let result = try process.run(timeout: .seconds(600))
  let fields = result.outputText.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
  guard result.termination == .exited(0), fields.count == 2 else {
    fatalError("the spraying copy failed: \(result.termination) \(result.outputText)")
  }
  return (fields[0], fields[1] / 1024)
}

/// In the spraying copy: runs the burst through a Store, checks that every action was applied in
/// order, and prints the seconds and the peak RSS in KB (this process's plus its worker's).
func sprayChild(_ arguments: [String]) -> Never {
  guard arguments.count == 4, let threads = Int(arguments[2]), let per = Int(arguments[3]) else { exit(2) }
  do {
    let plugin = try PluginLoader.load(arguments[0])
    let store = try Store(
      plugin: plugin, config: #"{"tag":"spray"}"#, instances: arguments[1] == "worker" ? workerFactory : .inProcess,
      observer: { _ in })
    try store.start()
    _ = store.waitUntilSettled(timeout: .seconds(60))
    let elapsed = seconds {
      store.send(#"{"type":"burst","threads":\#(threads),"per":\#(per)}"#, source: .user)
      _ = store.waitUntilSettled(timeout: .seconds(600))
    }
    let state = store.perform { try? $0.snapshot() }
    let expected = #"{"count":\#(threads * per),"disorder":0,"foreign":0,"pings":0,"reentered":0}"#
    precondition(state == expected, "every action must be applied in order, got \(state ?? "nothing")")
    // The worker's peak, read while it still lives.
    let workers = childProcesses(of: getpid()).compactMap { peakKilobytes(of: $0) }.reduce(0, +)
    let own = peakKilobytes(of: getpid()) ?? 0
    store.stop()
    print(elapsed, own + workers)
    exit(0)
  } catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
  }
}

/// The children of process `pid` (of any of its threads), from /proc, each once: a child can be
/// listed under more than one of the threads.
func childProcesses(of pid: pid_t) -> [pid_t] {
  let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
  let children = tasks.flatMap { task in
    let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
    return text.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
  }
  return Array(Set(children)).sorted()
}

/// A process's peak resident memory (VmHWM) in KB.
func peakKilobytes(of pid: pid_t) -> Double? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
  else { return nil }
  return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
}
