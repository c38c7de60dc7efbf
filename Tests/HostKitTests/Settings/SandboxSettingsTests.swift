import FeatureTesting
import Foundation
import HostKit
import Testing

@testable import host

/// `--max-memory` and the sizes it reads, and `host list --verbose`'s account of the sandbox.
@Suite("Sandbox settings")
struct SandboxSettingsTests {
  @Test(
    arguments: [
      ("512M", UInt64(512) << 20), ("1G", UInt64(1) << 30), ("2GiB", UInt64(2) << 30), ("1.5g", UInt64(3) << 29),
      ("64 MiB", UInt64(64) << 20), ("1073741824", UInt64(1) << 30), ("4k", UInt64(4096)),
    ])
  func aSizeIsReadAsPeopleWriteIt(text: String, bytes: UInt64) {
    #expect(MemorySize.parse(text) == bytes)
  }

  @Test(arguments: ["", "0", "G", "12X", "1.2345G", "-1G", "1..5G", "99999999999999999999T"])
  func whatIsNoSizeIsRefused(text: String) {
    #expect(MemorySize.parse(text) == nil)
  }

  @Test func aSizeIsWrittenInItsLargestWholeUnit() {
    #expect(MemorySize.text(1 << 30) == "1 GiB")
    #expect(MemorySize.text(3 << 29) == "1.5 GiB")
    #expect(MemorySize.text(256 << 20) == "256 MiB")
    #expect(MemorySize.text(1000) == "1000 bytes")
  }

  @Test func theDefaultLimitIsAtMostTwoGiB() {
    #expect(SandboxSettings.defaultMaxMemory <= 2 << 30)
    #expect(SandboxSettings.defaultMaxMemory >= 64 << 20)
    #expect(RunSettingCatalogue.maxMemory.defaultValue == SandboxSettings.defaultMaxMemory)
    #expect(CommandTable.Isolation.maxMemory.kind == .size(minimum: 64 << 20))
  }

  @Test func aBadMaxMemoryIsAUsageErrorNamingIt() async throws {
    let result = try await HostProcess.run(["run", "counter", "--max-memory", "12X"], input: "")
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: --max-memory '12X' must be a size of 64 MiB or more\n"), "\(result.stderr)")
    let small = try await HostProcess.run(["run", "counter", "--max-memory", "1M"], input: "")
    #expect(small.status == 64)
  }

  @Test func listVerboseSaysWhatTheSandboxApplies() async throws {
    let result = try await HostProcess.run(["list", "--verbose"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let start = try #require(lines.firstIndex { $0.hasPrefix("sandbox: ") }, "\(result.stdout)")
    let account = Array(lines[start...])
    #expect(account.count == 5, "\(account)")
    #expect(account.contains { $0.hasPrefix("  seccomp: on: exec, fork, ptrace") })
    #expect(
      account.contains { $0.hasPrefix("  limits: \(MemorySize.text(SandboxSettings.defaultMaxMemory)) of memory") })
    if Sandbox.landlockABI >= 4 {
      #expect(account.contains { $0.hasPrefix("  landlock: on (ABI \(Sandbox.landlockABI))") })
    }
    // and without --verbose there is no account
    #expect(!(try await HostProcess.run(["list"])).stdout.contains("sandbox: "))
  }

  @Test func withoutLandlockOrSeccompWorkersRunWithTheRestAndTheHostSaysSoOnce() async throws {
    // given a system without Landlock and seccomp filters (simulated), and two features' workers
    let environment = [Sandbox.simulateVariable: "no-landlock,no-seccomp"]
    let result = try await HostProcess.run(
      ["run", "counter", "--isolation", "process"], input: "increment\n:open levels\n:back\nincrement\n:state\n",
      environment: environment)
    // then the features run as before
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(#"{"clicks":2,"count":2}"#), "\(result.stdout)")
    // and the host said once which protections are off
    let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: the sandbox runs without") }
    // (Under a sanitizer, Tests/Sanitizers/run, the memory limit is off as well, and said first.)
    let memory = Sandbox.sanitizer == nil ? "" : "memory limit: none under a sanitizer (its shadow memory is larger); "
    #expect(
      warnings == [
        "warning: the sandbox runs without some protections (\(memory)landlock: this kernel has none; seccomp: this "
          + "kernel has no seccomp filters (exec, fork and ptrace are not stopped); notices: they need seccomp); "
          + "workers run with the rest ('host list --verbose')"
      ], "\(result.stderr)")
    // and list --verbose says the same
    let list = try await HostProcess.run(["list", "--verbose"], environment: environment)
    #expect(list.stdout.contains("  landlock: off (this kernel has none): files and TCP ports are not confined\n"))
    #expect(list.stdout.contains("  seccomp: off (this kernel has no seccomp filters)\n"))
  }

  @Test func aWorkersPrivateFolderGoesWithItAndAGoneHostsIsSweptAway() async throws {
    // given a temporary folder holding the private folder of a host that was killed (its pid gone)
    let temporary = try FixturePlugin.temporaryFolder()
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/true")
    try ended.run()
    ended.waitUntilExit()
    let gone = ended.processIdentifier
    let workers = "\(temporary)/featurehost-workers-\(geteuid())"
    let stale = "\(workers)/\(gone)-AbCdEf"
    try FileManager.default.createDirectory(
      atPath: workers, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    try FileManager.default.createDirectory(atPath: stale + "/tmp", withIntermediateDirectories: true)
    // when a host runs a feature in a worker there
    let result = try await HostProcess.run(
      ["run", "counter", "--isolation", "process"], input: "increment\n", environment: ["TMPDIR": temporary])
    #expect(result.status == 0, "\(result.stderr)")
    // then the gone host's folder was swept away, and the worker's own went with it; the
    // user's folder of them stays, closed to others
    #expect(try FileManager.default.contentsOfDirectory(atPath: workers) == [])
    let mode = try FileManager.default.attributesOfItem(atPath: workers)[.posixPermissions] as? Int
    #expect(mode == 0o700)
  }
}
