import FeatureTesting
import Foundation
import Testing

@testable import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// A worker runs `host-worker`, built beside the host without Foundation (it starts in about
/// half the time), and the host itself (`host __worker`) where there is none beside it.
@Suite("The lean worker executable")
struct LeanWorkerTests {
  /// The executable process `pid` runs, and whether it mapped Foundation.
  private static func executableAndFoundation(of pid: pid_t) throws -> (String, Bool) {
    let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    return (exe, try readWhole("/proc/\(pid)/maps").contains("libFoundation"))
  }

  /// A /proc file read to its end (its size says 0, and under a sanitizer it is long).
  private static func readWhole(_ path: String) throws -> String {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func aWorkerRunsHostWorkerWhichLoadsNoFoundation() throws {
    // given a worker started for the built host
    let instance = try WorkerFixtures.worker(CounterLibrary.path, target: CallbackLog())
    defer { instance.destroy() }
    try instance.start()
    _ = try instance.dispatch(#"{"type":"created"}"#)
    #expect(try instance.dispatch(#"{"type":"increment"}"#))
    // then it runs host-worker from the host's folder, without Foundation in its memory
    let (exe, foundation) = try Self.executableAndFoundation(of: instance.workerProcessID)
    #expect(exe == "\(PluginPaths.buildFolder)/host-worker")
    #expect(!foundation)
  }

  @Test func aHostWithoutHostWorkerBesideItServesWorkersItself() throws {
    // given the host reached from a folder without host-worker in it
    let folder = try FixturePlugin.temporaryFolder()
    let alone = "\(folder)/host"
    #expect(symlink(HostProcess.executable, alone) == 0)
    let settings = WorkerSettings(executable: alone, callTimeout: 10)
    #expect(settings.workerExecutable == alone)
    // when a worker starts from it
    let instance = try WorkerInstance(
      plugin: try PluginLoader.load(CounterLibrary.path), config: "{}", target: CallbackLog(), settings: settings)
    defer { instance.destroy() }
    try instance.start()
    _ = try instance.dispatch(#"{"type":"created"}"#)
    // then it serves as any worker does, from the host executable (with Foundation)
    #expect(try instance.dispatch(#"{"type":"increment"}"#))
    #expect(try instance.snapshot() == #"{"clicks":1,"count":1}"#)
    let (exe, foundation) = try Self.executableAndFoundation(of: instance.workerProcessID)
    #expect(exe == HostProcess.executable)
    #expect(foundation)
  }

  @Test func hostWorkerRunByHandSaysWhatItIsForAndExits64() throws {
    var process = ChildProcess("\(PluginPaths.buildFolder)/host-worker", arguments: [])
    process.standardOutput = .capture
    process.standardError = .capture
    let result = try process.run(timeout: .seconds(10))
    #expect(result.termination == .exited(64))
    #expect(
      result.errorText == "error: 'host-worker' serves a feature for a host process and is not run by hand\n"
        + "help: run a feature with 'host run ID'\n")
  }

  @Test(
    "a worker executable built apart from its host refuses to serve it",
    arguments: ["host-worker", "host"])
  func aWorkerOfAnotherProtocolVersionRefusesWithExit65(_ name: String) throws {
    // given the worker's descriptors open, as a host passes them, but another protocol version
    let null = open("/dev/null", O_RDWR)
    defer { close(null) }
    let other = WorkerLaunch.protocolVersion + 1
    var process = ChildProcess(
      "\(PluginPaths.buildFolder)/\(name)", arguments: ["__worker", "\(getpid())", "\(other)"])
    process.passedDescriptors = [3: null, WorkerServer.channelDescriptor: null]
    process.standardOutput = .capture
    process.standardError = .capture
    // when it starts
    let result = try process.run(timeout: .seconds(10))
    // then it serves nothing and says why, and how to build the two together
    let executable = name == "host" ? "host __worker" : name
    #expect(result.termination == .exited(65))
    #expect(
      result.errorText.contains(
        "error: '\(executable)' speaks worker protocol \(WorkerLaunch.protocolVersion) and its host \(other): "
          + "the two were built apart"))
    #expect(result.errorText.contains("help: build them together: 'swift build'"))
  }

  @Test func hostWorkerScansAPluginAsTheHostsScannerDoes() throws {
    // given the counter's plugin file, scanned by hand by host-worker and by the host
    func scan(_ executable: String) throws -> ChildResult {
      let path = "\(PluginPaths.buildFolder)/\(executable)"
      var process = ChildProcess(path, arguments: ["__scan", CounterLibrary.path])
      process.standardOutput = .capture
      process.standardError = .capture
      return try process.run(timeout: .seconds(10))
    }
    let lean = try scan("host-worker")
    let host = try scan("host")
    // then both report the load's phases and the same answer
    #expect(lean.termination == .exited(0) && host.termination == .exited(0))
    #expect(lean.outputText == host.outputText)
    let lines = lean.outputText.split(separator: "\n")
    #expect(lines.first == "phase dlopen")
    #expect(lines.last?.hasPrefix(#"answer {"abi_major":1,"#) == true, "\(lean.outputText)")
  }
}
