import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// `host __scan PLUGIN.so`, hidden: the registry's scanner, run by the host in a child process
/// per new or changed plugin file (see `ScannerProcess`).
///
/// Writes a `phase` line before each phase of the load, so a crash can be placed, then one
/// `answer` line (the manifest and ABI version, or why the file was refused) to descriptor 3,
/// or to stdout when run by hand. Then it leaves at once, skipping exit handlers and static
/// destructors: the plugin's code has run here and may have broken them.
enum ScanCommand {
  static func run(_ arguments: ParsedArguments) -> Never {
    // Run by a host that is gone: nobody reads the answer.
    guard HostChild.endsWithItsHost() else { _exit(70) }
    // The reader has checked PLUGIN.so is there. dlopen searches the library path for a bare name.
    let given = arguments.positionals[0]
    let path = given.contains("/") ? given : "./" + given
    let sink = HostChild.reportSink(ScannerProcess.reportDescriptor)
    // The scanner needs nothing beyond loading: the plugin's constructors run with no grant.
    let policy = SandboxPolicy(
      readPaths: Sandbox.systemReadPaths(pluginPath: path, network: false), writePaths: [], connectPorts: [],
      maxMemory: SandboxSettings.defaultMaxMemory, noteDescriptor: sink)
    do {
      _ = try Sandbox.apply(policy) { _ in }
    } catch {
      let refusal = PluginScan.rejected(
        reason: "the scanner could not sandbox itself: \(error.message)", help: error.help)
      HostChild.writeLine(ScannerProcess.Line.answer(refusal).text, to: sink)
      _exit(0)
    }
    let scan = PluginScan.inProcess(path) { phase in
      HostChild.writeLine(ScannerProcess.Line.phase(phase).text, to: sink)
    }
    HostChild.writeLine(ScannerProcess.Line.answer(scan).text, to: sink)
    _exit(0)
  }
}

extension ScanCommand {
  /// The scanner that runs this executable as `host __scan PATH` in a child per file; nil when
  /// the executable cannot be found.
  static func process(timeout: Duration, environment: [String: String] = ChildProcess.currentEnvironment)
    -> ScannerProcess?
  {
    guard let executable = OwnExecutable.path else { return nil }
    return ScannerProcess(executable: executable, timeout: timeout, environment: environment) { path in
      [CommandTable.scan.name, path]
    }
  }
}

/// The running host executable, which child processes run again.
enum OwnExecutable {
  /// From /proc/self/exe; nil when it cannot be read.
  static var path: String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
