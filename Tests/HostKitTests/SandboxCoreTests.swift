import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The sandbox's system-level core (Sources/CSandbox), seen from a child process: the probe
/// (Tests/Fixtures/sandbox/sandbox_probe.c) applies it, does one thing, and prints what happened
/// and what was noticed; its descriptor 3 is the note descriptor.
@Suite("Sandbox core")
struct SandboxCoreTests {
  struct ProbeRun {
    var termination: ChildTermination
    var output: String
    var note: String
  }

  // Locked, not Mutex: ThreadSanitizer sees a pthread mutex change hands (see Locked).
  private static let builtProbe = Locked<String?>(nil)

  /// The probe, compiled once per test process with the sandbox's C files and -Wall -Werror.
  static func probePath() throws -> String {
    try builtProbe.withLock { built in
      if let built { return built }
      let root = FixturePlugin.packageRoot
      let sources = try FileManager.default.contentsOfDirectory(atPath: "\(root)/Sources/CSandbox")
        .filter { $0.hasSuffix(".c") }.sorted().map { "\(root)/Sources/CSandbox/\($0)" }
      let output = "\(try FixturePlugin.temporaryFolder())/sandbox_probe"
      try FixturePlugin.run(
        "cc",
        ["-O1", "-Wall", "-Werror", "-I", "\(root)/Sources/CSandbox/include", "-o", output]
          + ["\(root)/Tests/Fixtures/sandbox/sandbox_probe.c"] + sources + ["-lpthread"])
      built = output
      return output
    }
  }

  static func probe(_ options: [String] = [], _ operation: String...) throws -> ProbeRun {
    try probe(options, operation: operation)
  }

  static func probe(_ options: [String], operation: [String]) throws -> ProbeRun {
    var process = ChildProcess(try probePath(), arguments: options + ["--note-fd", "3", "--"] + operation)
    process.extraOutputs = [3]
    let result = try process.run(timeout: .seconds(120))
    return ProbeRun(
      termination: result.termination, output: result.outputText,
      note: String(decoding: result.extraOutputs[3] ?? [], as: UTF8.self))
  }

  /// A fresh folder holding `denied/secret` ("original") and `allowed/file`.
  static func plantedFolder() throws -> String {
    let folder = try FixturePlugin.temporaryFolder()
    for (name, text) in [("denied", "secret"), ("allowed", "file")] {
      try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: false)
      try "original".write(toFile: "\(folder)/\(name)/\(text)", atomically: false, encoding: .utf8)
    }
    return folder
  }

  // MARK: - Files

  @Test func readingOutsideTheGrantedPathsIsRefusedAndNoticed() throws {
    let folder = try Self.plantedFolder()
    let run = try Self.probe(["--read", "\(folder)/allowed"], "read", "\(folder)/denied/secret")
    #expect(run.output == "notice read \(folder)/denied/secret\nerrno EACCES\n")
    #expect(run.termination == .exited(0))
  }

  @Test func readingAGrantedPathWorks() throws {
    let folder = try Self.plantedFolder()
    let run = try Self.probe(["--read", "\(folder)/allowed"], "read", "\(folder)/allowed/file")
    #expect(run.output == "ok\n")
  }

  @Test func aGrantedFileIsReadableButNotItsNeighbours() throws {
    let folder = try Self.plantedFolder()
    let granted = try Self.probe(["--read", "\(folder)/allowed/file"], "read", "\(folder)/allowed/file")
    #expect(granted.output == "ok\n")
    let neighbour = try Self.probe(["--read", "\(folder)/allowed/file"], "read", "\(folder)/denied/secret")
    #expect(neighbour.output.hasSuffix("errno EACCES\n"))
  }

  @Test func aRefusalRelativeToAFolderDescriptorIsNoticedByItsAbsolutePath() throws {
    let folder = try Self.plantedFolder()
    let run = try Self.probe(["--read", "\(folder)/allowed"], "readat", "\(folder)/denied", "secret")
    #expect(run.output == "notice read \(folder)/denied/secret\nerrno EACCES\n")
  }

  struct WriteCase: Sendable, CustomTestStringConvertible {
    var id: String
    var operation: [String]
    var subject: String
    var testDescription: String { id }
  }

  static let writeCases: [WriteCase] = [
    WriteCase(id: "overwrite", operation: ["write", "F/secret", "changed"], subject: "F/secret"),
    WriteCase(id: "create", operation: ["create", "F/new"], subject: "F/new"),
    WriteCase(id: "mkdir", operation: ["mkdir", "F/sub"], subject: "F/sub"),
    WriteCase(id: "rename", operation: ["rename", "F/secret", "F/moved"], subject: "F/secret -> F/moved"),
    WriteCase(id: "unlink", operation: ["unlink", "F/secret"], subject: "F/secret"),
  ]

  @Test(arguments: writeCases)
  func writesInAFolderNotGrantedAreRefusedNoticedAndChangeNothing(_ writeCase: WriteCase) throws {
    // given a folder that is readable but not granted for writing
    let folder = try Self.plantedFolder()
    let denied = "\(folder)/denied"
    let operation = writeCase.operation.map { $0.replacingOccurrences(of: "F/", with: "\(denied)/") }
    // when the probe tries to change it
    let run = try Self.probe(["--read", folder, "--write", "\(folder)/allowed"], operation: operation)
    // then the call fails with EACCES, says what was tried, and the folder is as it was
    let subject = writeCase.subject.replacingOccurrences(of: "F/", with: "\(denied)/")
    #expect(run.output == "notice write \(subject)\nerrno EACCES\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: denied) == ["secret"])
    #expect(try String(contentsOfFile: "\(denied)/secret", encoding: .utf8) == "original")
  }

  @Test func writesInAGrantedFolderWork() throws {
    let folder = try Self.plantedFolder()
    let granted = "\(folder)/allowed"
    let options = ["--read", folder, "--write", granted]
    #expect(try Self.probe(options, "write", "\(granted)/file", "changed").output == "ok\n")
    #expect(try Self.probe(options, "create", "\(granted)/new").output == "ok\n")
    #expect(try Self.probe(options, "mkdir", "\(granted)/sub").output == "ok\n")
    #expect(try Self.probe(options, "rename", "\(granted)/new", "\(granted)/moved").output == "ok\n")
    #expect(try Self.probe(options, "unlink", "\(granted)/moved").output == "ok\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: granted).sorted() == ["file", "sub"])
    #expect(try String(contentsOfFile: "\(granted)/file", encoding: .utf8) == "changed")
  }

  @Test func aThreadStartedAfterApplyIsConfinedAndNoticedToo() throws {
    let folder = try Self.plantedFolder()
    let run = try Self.probe(["--read", "\(folder)/allowed"], "thread-read", "\(folder)/denied/secret")
    #expect(run.output == "notice read \(folder)/denied/secret\nthread errno EACCES\n")
  }

  // MARK: - Network

  /// A listening TCP socket on a free loopback port; its backlog completes connections unaccepted.
  final class LoopbackServer {
    let descriptor: Int32
    let port: UInt16

    init() throws {
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
      var size = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
          bind(descriptor, socketAddress, size) == 0 && listen(descriptor, 8) == 0
            && getsockname(descriptor, socketAddress, &size) == 0
        }
      }
      guard descriptor >= 0, bound else {
        close(descriptor)
        throw FixtureError("loopback server: errno \(errno)")
      }
      self.descriptor = descriptor
      port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
  }

  @Test func connectingToAnUndeclaredPortIsRefusedAndNoticed() throws {
    // given a plugin that declared another port (so it may make internet sockets)
    let server = try LoopbackServer()
    let other = server.port == 443 ? 80 : 443
    let run = try Self.probe(["--port", "\(other)"], "connect", "\(server.port)")
    #expect(run.output == "notice connect \(server.port)\nerrno EACCES\n")
  }

  @Test func ioUringIsNotThereSoNothingRunsOutOfTheFiltersSight() throws {
    let run = try Self.probe([], "io-uring")
    #expect(run.output == "errno ENOSYS\n")
  }

  @Test func aThreadsOwnProcFolderIsReadUnderItsThreadID() throws {
    // libdispatch reads /proc/TID/stat of its workers, and crashes when it cannot
    // given its own /proc folder granted, as a worker's is (the probe opens /proc/self itself)
    let run = try Self.probe(["--read", "/proc/self"], "thread-stat")
    #expect(run.output == "ok\n")
  }

  @Test func withoutADeclaredPortNoInternetSocketIsMadeUDPIncluded() throws {
    let server = try LoopbackServer()
    let tcp = try Self.probe([], "connect", "\(server.port)")
    #expect(tcp.output == "notice socket network\nerrno EACCES\n")
    let udp = try Self.probe([], "socket", "udp")
    #expect(udp.output == "notice socket network\nerrno EACCES\n")
    // and with one, a UDP socket (the resolver's) is made
    let granted = try Self.probe(["--port", "443"], "socket", "udp")
    #expect(granted.output == "ok\n")
  }

  @Test func aLocalSocketIsRefusedEvenWithADeclaredPort() throws {
    let run = try Self.probe(["--port", "443"], "socket", "unix")
    #expect(run.output == "notice socket local\nerrno EACCES\n")
  }

  @Test func withoutNoticesAFilterRefusesTheSameSockets() throws {
    let unix = try Self.probe(["--no-notices", "--port", "443"], "socket", "unix")
    #expect(unix.output == "errno EACCES\n")
    let udp = try Self.probe(["--no-notices"], "socket", "udp")
    #expect(udp.output == "errno EACCES\n")
  }

  @Test func connectingToADeclaredPortWorks() throws {
    let server = try LoopbackServer()
    let run = try Self.probe(["--port", "\(server.port)"], "connect", "\(server.port)")
    #expect(run.output == "ok\n")
  }

  @Test func anUndeclaredPortIsRefusedWithoutNoticesToo() throws {
    // given no notice callback, so no supervisor: Landlock alone decides
    try #require(Sandbox.landlockABI >= 4, "Landlock cannot confine TCP ports on this kernel")
    let server = try LoopbackServer()
    let run = try Self.probe(
      ["--no-notices", "--port", "\(server.port == 443 ? 80 : 443)"], "connect", "\(server.port)")
    #expect(run.output == "errno EACCES\n")
  }

  @Test func bindingIsRefusedAndNoticed() throws {
    let run = try Self.probe(["--port", "443"], "bind")
    #expect(run.output == "notice bind 0\nerrno EACCES\n")
  }

  // MARK: - Stopped calls

  struct StoppedCase: Sendable, CustomTestStringConvertible {
    var operation: String
    var notes: [String]
    var testDescription: String { operation }
  }

  static let stoppedCases: [StoppedCase] = [
    StoppedCase(operation: "exec", notes: ["stopped execve\n"]),
    // glibc's fork is a clone without CLONE_THREAD.
    StoppedCase(operation: "fork", notes: ["stopped fork\n", "stopped clone\n"]),
    StoppedCase(operation: "kill-parent", notes: ["stopped kill\n"]),
    StoppedCase(operation: "ptrace", notes: ["stopped ptrace\n"]),
    StoppedCase(operation: "vm-read", notes: ["stopped process_vm_readv\n"]),
  ]

  @Test(arguments: stoppedCases)
  func aCallNoPluginNeedsStopsTheWorkerWithANote(_ stoppedCase: StoppedCase) throws {
    let run = try Self.probe([], stoppedCase.operation)
    #expect(run.termination == .signalled(SIGSYS))
    #expect(stoppedCase.notes.contains(run.note), "note: \(run.note)")
    #expect(run.output == "", "the call returned instead: \(run.output)")
  }

  @Test func theSIGSYSHandlerCannotBeReplaced() throws {
    #expect(try Self.probe([], "replace-sigsys").output == "errno EPERM\n")
  }

  @Test func clone3FailsWithENOSYSSoGlibcFallsBackToClone() throws {
    #expect(try Self.probe([], "clone3").output == "errno ENOSYS\n")
  }

  // MARK: - Limits

  @Test func anAllocationPastTheMemoryLimitFails() throws {
    let options = ["--memory", "\(1 << 30)"]
    #expect(try Self.probe(options, "malloc", "\(8 << 30)").output == "null\n")
    #expect(try Self.probe(options, "malloc", "\(64 << 20)").output == "allocated\n")
  }

  @Test func aCrashNearTheMemoryLimitLeavesAMemoryNote() throws {
    let options = ["--memory", "\(256 << 20)"]
    let exhausted = try Self.probe(options, "exhaust-and-abort")
    #expect(exhausted.termination == .signalled(SIGABRT))
    #expect(exhausted.note == "memory \(256 << 20)\n")
    // and a crash far from it leaves none
    let crashed = try Self.probe(options, "abort")
    #expect(crashed.termination == .signalled(SIGABRT))
    #expect(crashed.note == "")
  }

  @Test func opensPastTheDescriptorLimitFailWithEMFILE() throws {
    let run = try Self.probe(["--files", "1024", "--read", "/dev/null"], "opens", "100000", "/dev/null")
    let fields = run.output.split(separator: " ")
    let opened = fields.count == 3 ? Int(fields[1]) : nil
    #expect(fields.first == "opened" && fields.last == "EMFILE\n", "\(run.output)")
    #expect(opened.map { (1000..<1024).contains($0) } == true, "\(run.output)")
  }

  @Test func coreFilesAreOffForGood() throws {
    #expect(try Self.probe([], "core-limit").output == "core 0 0\n")
  }

  // MARK: - Apply

  @Test func applyWithASecondThreadRunningFailsAndSaysWhy() throws {
    let run = try Self.probe(["--thread-first"], "report")
    #expect(run.termination == .exited(3))
    #expect(
      run.output.hasPrefix(
        "apply failed: the sandbox must be applied while the process has one thread, and it has 2"))
  }

  @Test func theSwiftApplyRefusesAProcessWithThreads() throws {
    // given this test process, which runs tests on several threads
    let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    try #require(threads > 1, "the refusal below is what keeps this process unconfined")
    // when it applies the sandbox, then it is refused before anything is changed
    let error = #expect(throws: HostError.self) {
      _ = try Sandbox.apply(SandboxPolicy()) { _ in }
    }
    #expect(error?.message.contains("while the process has one thread") == true, "\(String(describing: error))")
  }

  @Test func theReportSaysEverythingIsApplied() throws {
    try #require(Sandbox.landlockABI >= 4, "this kernel cannot apply everything")
    let run = try Self.probe([], "report")
    #expect(
      run.output == "abi \(Sandbox.landlockABI) nnp 1 landlock 1 seccomp 1 limits 1 notices 1 off ''\n")
  }

  @Test func theReportSaysWhyNoticesAreOff() throws {
    let run = try Self.probe(["--no-notices"], "report")
    #expect(run.output.hasSuffix("notices 0 off 'notices: no notice callback given'\n"))
  }

  // MARK: - System paths

  @Test func systemReadPathsHoldWhatAPluginNeedsAndExist() throws {
    let folder = try Self.plantedFolder()
    let plugin = "\(folder)/allowed/file"
    let paths = Sandbox.systemReadPaths(pluginPath: plugin, network: false)
    #expect(paths.contains(plugin) && paths.contains("\(folder)/allowed"))
    #expect(paths.contains("/proc/\(getpid())"))
    #expect(paths.contains { FileManager.default.fileExists(atPath: "\($0)/libswiftCore.so") })
    #expect(paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    #expect(Set(paths).count == paths.count)
    #expect(!paths.contains("/etc/resolv.conf"))
  }

  @Test func systemReadPathsForTheNetworkAddTheResolverAndCertificates() throws {
    let paths = Sandbox.systemReadPaths(pluginPath: "/nonexistent/libx.so", network: true)
    let expected = ["/etc/resolv.conf", "/etc/ssl"].filter { FileManager.default.fileExists(atPath: $0) }
    #expect(expected.allSatisfy(paths.contains))
    #expect(!paths.contains("/nonexistent/libx.so"))
  }
}
