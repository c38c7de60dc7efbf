import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

// What a running `host run` costs the machine while nobody types: the host and its worker
// together, from /proc. An idle worker should cost nothing (no spinning while idle).

/// Milliseconds of CPU (user and system) that `host run ID` and its children use over `window`,
/// with stdin a pipe kept open: after `input` is written and once the worker exists and a second
/// has passed.
func idleCPU(feature: String, input: String = "", window: Duration = .seconds(10)) throws -> Double {
  var process = ChildProcess("\(folder)/host", arguments: ["run", feature])
  process.standardInput = .pipe
  process.standardOutput = .discard
  process.standardError = .discard
  let child = try process.start()
  child.write(Array(input.utf8))
  // The worker is the host's child; without one the row would measure the host alone.
  let deadline = ContinuousClock.now + .seconds(30)
  while childProcesses(of: child.pid).isEmpty {
    precondition(ContinuousClock.now < deadline && !child.hasExited, "host run \(feature) started no worker")
    child.pump(until: ContinuousClock.now + .milliseconds(10))
  }
  child.pump(until: ContinuousClock.now + .seconds(1))
  let processes = [child.pid] + childProcesses(of: child.pid)
  let before = processes.map { CPUTime($0) }
  child.pump(until: ContinuousClock.now + window)
  let after = processes.map { CPUTime($0) }
  precondition(!child.hasExited, "host run \(feature) ended while idle")
  child.closeInput()
  let result = child.finish(until: ContinuousClock.now + .seconds(30))
  precondition(result.termination == .exited(0), "host run \(feature): \(result.termination)")
  let used = zip(before, after).map { before, after -> Double in
    guard let before, let after else { fatalError("a process of host run \(feature) ended while measured") }
    return after.since(before)
  }
  return used.reduce(0, +) * 10 / window.seconds
}

/// The CPU time of process `pid` so far, in milliseconds, read from /proc: its threads' run times
/// (schedstat, in nanoseconds) and its user and system time (stat, in clock ticks of 10 ms, but
/// counting ended threads too).
private struct CPUTime {
  var threads: [String]
  var runTime: Double?
  var ticks: Double

  /// Nil once the process is gone.
  init?(_ pid: pid_t) {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"),
      let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    threads = tasks.sorted()
    let runTimes = threads.compactMap { task in
      (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8))
        .flatMap { $0.split(separator: " ").first }.flatMap { Double($0) }
    }
    runTime = runTimes.count == threads.count ? runTimes.reduce(0, +) / 1e6 : nil
    // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    ticks = (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Milliseconds used since `earlier`: the precise figure when the same threads ran throughout.
  func since(_ earlier: CPUTime) -> Double {
    if threads == earlier.threads, let runTime, let before = earlier.runTime { return runTime - before }
    return ticks - earlier.ticks
  }
}
