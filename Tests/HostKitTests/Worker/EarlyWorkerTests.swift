import CEarlyWorker
import FeatureTesting
import Foundation
import Testing
import WorkerKit

@testable import host

@Suite("A run's worker started before the host's own start-up")
struct EarlyWorkerTests {
  static func wanted(_ words: [String], isolation: String?) -> Bool {
    let copies = words.map { UnsafePointer(strdup($0)!) }
    defer { for copy in copies { free(UnsafeMutablePointer(mutating: copy)) } }
    let pointers: [UnsafePointer<CChar>?] = copies
    return pointers.withUnsafeBufferPointer { fh_early_worker_wanted(Int32($0.count), $0.baseAddress, isolation) != 0 }
  }

  @Test(
    "which command lines start it",
    arguments: [
      ([], nil, true),
      (["run", "counter"], nil, true),
      (["run", "counter", "--isolation", "process"], nil, true),
      (["run", "--flow", "f.json"], "process", true),
      (["--plugins", "dir", "--plugins", "other", "run", "counter"], nil, true),
      (["run", "counter", "--isolation", "none"], nil, false),
      (["run", "counter"], "none", false),
      (["run", "counter"], "bogus", false),
      (["run", "--help"], nil, false),
      (["run", "-h"], nil, false),
      (["list"], nil, false),
      (["validate", "counter"], nil, false),
      (["--version"], nil, false),
      (["--plugins", "dir", "list"], nil, false),
    ] as [([String], String?, Bool)])
  func startsEarly(_ words: [String], _ isolation: String?, _ starts: Bool) {
    #expect(Self.wanted(words, isolation: isolation) == starts)
  }

  @Test func theWordsTheDecisionReadsAreTheCommandTables() {
    // Sources/CEarlyWorker reads them by name, before the table exists.
    #expect(CommandTable.run.name == "run")
    #expect(CommandTable.Isolation.isolation.name == "--isolation")
    #expect(Isolation.variable == "FEATUREHOST_ISOLATION")
    #expect(Isolation.none.rawValue == "none" && Isolation.process.rawValue == "process")
  }

  @Test func everyOptionBeforeTheCommandThatTakesAValueIsSkippedAsTheTableReadsIt() {
    for option in CommandTable.global.options where option.kind != .flag {
      #expect(Self.wanted([option.name, "x", "run", "counter"], isolation: nil), "\(option.name)")
    }
  }

  @Test(.disabled(if: Sandbox.sanitizer != nil, "under a sanitizer the host starts its workers from main"))
  func aRunsFirstFeatureIsServedByTheWorkerStartedAheadAndSeesTheEnvironmentItsSettingsGive() throws {
    // given the fixture that logs its loads, and workers told to keep the log's variable
    let folder = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(
      atPath: try FixturePlugin.path(["FIXTURE_LOG_LOADS"]), toPath: "\(folder)/liblogged.so")
    let log = "\(try FixturePlugin.temporaryFolder())/loads.log"
    // (The log exists: a sandbox grants a declared file only when it is there.)
    #expect(FileManager.default.createFile(atPath: log, contents: nil))
    // when a host runs it
    let host = try LiveHost(
      ["--plugins", folder, "run", "fixture"],
      environment: ["FIXTURE_LOAD_LOG": log, "FEATUREHOST_WORKER_ENV": "FIXTURE_LOAD_LOG"])
    host.send(":state\n")
    _ = try host.read(through: "}")
    // then its worker is the one started before the host's start-up: it began with only what its
    // own start reads (a worker started later begins with the whole environment, PATH and all)
    let workers = WorkerInstanceTests.children(of: host.child.pid)
    #expect(workers.count == 1)
    let worker = try #require(workers.first)
    let initial = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(worker)/environ"))
      .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    #expect(initial.contains { $0.hasPrefix("SWIFT_BACKTRACE=") })
    #expect(initial.allSatisfy { $0.hasPrefix("SWIFT_BACKTRACE=") || $0.hasPrefix("LD_LIBRARY_PATH=") }, "\(initial)")
    // and the plugin it loaded saw the variable, which came with its create
    #expect(try String(contentsOfFile: log, encoding: .utf8) == "loaded\n")
    #expect(host.quit() == 0)
  }
}
