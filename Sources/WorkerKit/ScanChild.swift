#if canImport(Glibc)
  import Glibc
#endif

/// The registry's scanner child (`host-worker __scan PLUGIN.so`, or `host __scan`), run by the host
/// per new or changed plugin file (see `ScannerProcess`).
///
/// Writes a `phase` line before each phase of the load, so a crash can be placed, then one
/// `answer` line (the manifest and ABI version, or why the file was refused) to descriptor 3, or
/// to stdout when run by hand. Then it leaves at once, skipping exit handlers and static
/// destructors: the plugin's code has run here and may have broken them.
public enum ScanChild {
  public static func run(_ given: String) -> Never {
    // Run by a host that is gone: nobody reads the answer.
    guard HostChild.endsWithItsHost() else { _exit(70) }
    // The reader has checked PLUGIN.so is there. dlopen searches the library path for a bare name.
    let path = given.contains("/") ? given : "./" + given
    let sink = HostChild.reportSink(ScanLine.descriptor)
    // The scanner needs nothing beyond loading: the plugin's constructors run with no grant.
    let policy = SandboxPolicy(
      readPaths: Sandbox.systemReadPaths(pluginPath: path, network: false), writePaths: [], connectPorts: [],
      maxMemory: SandboxSettings.defaultMaxMemory, noteDescriptor: sink)
    do {
      _ = try Sandbox.apply(policy) { _ in }
    } catch {
      let refusal = PluginScan.rejected(
        reason: "the scanner could not sandbox itself: \(error.message)", help: error.help)
      HostChild.writeLine(ScanLine.answer(refusal).text, to: sink)
      _exit(0)
    }
    let scan = PluginScan.inProcess(path) { phase in
      HostChild.writeLine(ScanLine.phase(phase).text, to: sink)
    }
    HostChild.writeLine(ScanLine.answer(scan).text, to: sink)
    _exit(0)
  }
}
