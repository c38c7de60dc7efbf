import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// A scanner that inspects each file in a child process of its own (`host-worker __scan`, or the
/// host re-executed as `host __scan`), killed at a timeout or when the host goes, so a plugin that crashes or hangs
/// while it loads costs a rejection, not the host, and leaves nothing running.
///
/// The child writes `ScanLine`s on descriptor 3: a `phase` line before each phase of
/// the load, then one `answer`. Whatever the plugin prints on stdout or stderr is discarded.
public struct ScannerProcess: Sendable {
  /// The program to run: `host-worker`, or the host's own executable.
  public var executable: String
  /// The child's arguments to scan one file.
  public var arguments: @Sendable (_ path: String) -> [String]
  /// How long one file may take.
  public var timeout: Duration
  public var environment: [String: String]

  public init(
    executable: String, timeout: Duration, environment: [String: String] = ChildProcess.currentEnvironment,
    arguments: @escaping @Sendable (_ path: String) -> [String]
  ) {
    self.executable = executable
    self.timeout = timeout
    self.environment = environment
    self.arguments = arguments
  }

  /// This scanner as the registry takes it.
  public var scanner: PluginScanner { { path in self.scan(path) } }

  /// Scans `path` in a child; a crash, a timeout or an answer missing is a rejection naming the
  /// phase the child was in.
  public func scan(_ path: String) -> PluginScan {
    var environment = self.environment
    // A Swift plugin that traps would otherwise spend seconds printing a symbolicated backtrace.
    environment["SWIFT_BACKTRACE"] = "enable=no"
    var process = ChildProcess(executable, arguments: arguments(path), environment: HostChild.tied(environment))
    process.standardOutput = .discard
    process.standardError = .discard
    process.extraOutputs = [ScanLine.descriptor]
    let result: ChildResult
    do {
      // A plugin slowed by a busy machine is not a hung one: waiting for a CPU does not count.
      result = try process.run(budget: timeout)
    } catch {
      return .rejected(reason: "the scanner could not start: \(error)", help: error.advice)
    }
    let lines = String(decoding: result.extraOutputs[ScanLine.descriptor] ?? [], as: UTF8.self)
      .split(separator: "\n").compactMap(ScanLine.init(parsing:))
    return Self.verdict(lines: lines, termination: result.termination, timeout: timeout)
  }

  /// The scan the child's report and end amount to: its answer, or why it gave none.
  static func verdict(lines: [ScanLine], termination: ChildTermination, timeout: Duration) -> PluginScan {
    var phase: PluginLoader.Phase?
    var stopped: InstanceLoss?
    for line in lines {
      switch line {
      case .phase(let entered): phase = entered
      case .answer(let scan): return scan
      case .stopped(let loss): stopped = loss
      }
    }
    let place = phase.map { " \($0.place)" } ?? ""
    let help = "fix or remove the file (the conformance checks say more); it is scanned again when it changes"
    if let stopped, case .signalled = termination { return .rejected(reason: "\(stopped)\(place)", help: help) }
    switch termination {
    case .signalled(let signal):
      let name = strsignal(signal).map { String(cString: $0) } ?? "unknown signal"
      return .rejected(reason: "crashed with signal \(signal) (\(name))\(place)", help: help)
    case .timedOut:
      let seconds = timeout.seconds
      let text = seconds == seconds.rounded() && seconds < 1e15 ? String(Int64(seconds)) : String(seconds)
      return .rejected(reason: "did not answer within \(text) s\(place)", help: help)
    case .exited(0):
      return .rejected(reason: "the scanner ended without an answer\(place); did the plugin call exit()?", help: help)
    case .exited(let status):
      return .rejected(reason: "exited with status \(status)\(place)", help: help)
    }
  }
}
