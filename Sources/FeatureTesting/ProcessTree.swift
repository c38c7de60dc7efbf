import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The child processes of a process, read from /proc (Linux): how a test tells which workers and
/// scanners a host has running, and that it left none behind.
public enum ProcessTree {
  /// The running children of `parent` (a zombie has ended: only its exit status waits to be
  /// collected), from every one of its threads: a child is listed under the thread that started it.
  public static func children(of parent: pid_t) -> [pid_t] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(parent)/task")) ?? []
    let all = tasks.flatMap { task -> [pid_t] in
      let text = (try? String(contentsOfFile: "/proc/\(parent)/task/\(task)/children", encoding: .utf8)) ?? ""
      return text.split(separator: " ").compactMap { pid_t(String($0)) }
    }
    return all.filter { ProcessIdentity($0)?.isRunning == true }
  }

  /// The running children of `parent` once they are `count` or fewer, waiting at most `bound` for
  /// those on their way out; what is left at the end of `bound` otherwise.
  public static func children(of parent: pid_t, onceAtMost count: Int, within bound: Duration = .seconds(60))
    -> [pid_t]
  {
    let until = ContinuousClock.now + bound
    var left = children(of: parent)
    // /proc has no event to wait on: look again until the deadline.
    while left.count > count && ContinuousClock.now < until {
      sched_yield()
      left = children(of: parent)
    }
    return left
  }

  /// The command line of `pid`, its arguments joined by spaces; "?" when it cannot be read.
  public static func commandLine(_ pid: pid_t) -> String {
    (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.replacingOccurrences(of: "\0", with: " ")
      ?? "?"
  }

  /// Waits until `pid` has ended (gone, or a zombie), at most `bound`; false if it still runs then.
  public static func waitUntilEnded(_ pid: pid_t, within bound: Duration = .seconds(60)) -> Bool {
    guard let process = ProcessIdentity(pid) else { return true }
    return waitUntilEnded([process], within: bound).isEmpty
  }

  /// Waits until every one of `processes` has ended, at most `bound`; those still running then.
  public static func waitUntilEnded(_ processes: [ProcessIdentity], within bound: Duration = .seconds(60))
    -> [ProcessIdentity]
  {
    let until = ContinuousClock.now + bound
    var running = processes.filter(\.isRunning)
    while !running.isEmpty && ContinuousClock.now < until {
      sched_yield()
      running = running.filter(\.isRunning)
    }
    return running
  }
}

/// A process, told apart from a later one given the same id by its start time.
public struct ProcessIdentity: Sendable, Equatable {
  public let pid: pid_t
  /// Its start time, in clock ticks after boot.
  public let started: UInt64

  /// The process `pid` is now; nil when there is none.
  public init?(_ pid: pid_t) {
    guard let fields = Self.fields(pid), let started = UInt64(fields[19]) else { return nil }
    self.pid = pid
    self.started = started
  }

  /// Whether it still runs: not ended, not a zombie, not replaced by a later process with its id.
  /// Whether it runs: not a zombie, or a zombie leader whose other threads still run (and still
  /// hold its files: a sandboxed worker has a second thread).
  public var isRunning: Bool {
    guard let fields = Self.fields(pid), UInt64(fields[19]) == started else { return false }
    guard fields[0] == "Z" else { return true }
    let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.count ?? 0
    return threads > 1
  }

  /// The fields of /proc/PID/stat after the command name (which may hold spaces): state, parent,
  /// ..., start time (the 20th); nil when there is no such process.
  private static func fields(_ pid: pid_t) -> [Substring]? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 19 ? fields : nil
  }
}
