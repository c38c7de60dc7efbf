import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// `host __scan PLUGIN.so`, hidden: the registry's scanner child (`ScanChild`), as
/// `host-worker __scan` runs it where that is built beside the host.
enum ScanCommand {
  static func run(_ arguments: ParsedArguments) -> Never {
    ScanChild.run(arguments.positionals[0])
  }
}

extension ScanCommand {
  /// The scanner that runs `host-worker __scan PATH` (or this executable's `__scan` where there is
  /// no host-worker beside it) in a child per file; nil when the executable cannot be found.
  static func process(timeout: Duration, environment: [String: String] = ChildProcess.currentEnvironment)
    -> ScannerProcess?
  {
    OwnExecutable.path.map { process(host: $0, timeout: timeout, environment: environment) }
  }

  /// The scanner for the host executable at `host`.
  static func process(host: String, timeout: Duration, environment: [String: String]) -> ScannerProcess {
    ScannerProcess(executable: LeanExecutable.beside(host), timeout: timeout, environment: environment) { path in
      [CommandTable.scan.name, path]
    }
  }
}

/// The running host executable, which child processes run again.
enum OwnExecutable {
  /// `path`, or an error saying it cannot be found to do `what` ("to run the checks in").
  static func required(_ what: String) throws(HostError) -> String {
    guard let path else { throw HostError("cannot find the host executable (/proc/self/exe) \(what)") }
    return path
  }

  /// From /proc/self/exe; nil when it cannot be read.
  static var path: String? { ProcessExecutable.path() }
}
