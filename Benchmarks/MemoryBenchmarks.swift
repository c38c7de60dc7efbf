import HostKit

#if canImport(Glibc)
  import Glibc
#endif

// Peak memory of a whole process: measured in a fresh copy of this executable, whose only
// child is the process measured, so `getrusage(RUSAGE_CHILDREN)` is that child's own peak. The
// copy holds nothing large (the input comes through its stdin, which the child inherits): Linux
// counts the spawning process's memory toward a child's peak until the child's exec.

/// The argument that makes this executable the measuring copy.
let childPeakArgument = "__child-peak-rss"

/// Peak RSS in MB of `host run counter` fed `lines` increments through a pipe.
func pipePeakRSS(lines: Int, isolation: String = "none") throws -> Double {
  var process = ChildProcess(
    "\(folder)/Benchmarks",
    arguments: [childPeakArgument, "\(folder)/host", "run", "counter", "--isolation", isolation])
  process.standardError = .discard
  let result = try process.run(timeout: .seconds(600))
  guard result.termination == .exited(0), let kilobytes = Double(result.outputText.trimmingWhitespace()) else {
    fatalError("the measuring copy failed: \(result.termination) \(result.outputText)")
  }
  return kilobytes / 1024
}

/// In the measuring copy: runs `arguments` (an executable and its arguments) on this process's
/// stdin, and prints its peak RSS in KB.
func measureChildPeak(_ arguments: [String]) -> Never {
  guard let executable = arguments.first else { exit(2) }
  if executable == workerPeakArgument, arguments.count == 2 {
    do { try driveKittensWorker(journal: arguments[1]) } catch { exit(1) }
    printChildrenPeak()
  }
  var process = ChildProcess(executable, arguments: Array(arguments.dropFirst()))
  process.standardInput = .inherit
  process.standardOutput = .discard
  process.standardError = .discard
  guard let result = try? process.run(timeout: .seconds(600)), result.termination == .exited(0) else { exit(1) }
  printChildrenPeak()
}

/// Prints the peak RSS of this process's largest child (or grandchild) in KB, and exits.
private func printChildrenPeak() -> Never {
  var usage = rusage()
  getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
  print(usage.ru_maxrss)
  exit(0)
}
