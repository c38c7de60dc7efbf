import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Hot reload of a running store")
struct StoreReloadTests {
  /// A started `reloadable` store over a plugin file the test rebuilds, journaling into a file.
  struct Harness {
    let journaled: JournaledStore
    let builds: PluginBuilds
    let file: String
    let workers: WorkerLog
    var store: Store { journaled.store }
    var events: EventRecorder { journaled.events }
    var journalPath: String { journaled.journalPath }

    /// Rebuilds the plugin file as `version` and stages it, as a watch would.
    func rebuild(_ version: ReloadFixture.Version) throws -> PluginBuild {
      try ReloadFixture.build(version, into: file)
      return try builds.stage(file, feature: "reloadable")
    }

    func reload(_ build: PluginBuild) -> Result<ReloadReport, HostError> {
      let previous = builds.current(of: store.plugin)
      let result = store.reload(to: build, replacing: previous)
      if case .success = result { builds.adopt(build, forFile: file) }
      return result
    }

    func send(_ types: String...) {
      for type in types { store.send(#"{"type":"\#(type)"}"#, source: .user) }
      store.waitUntilIdle(timeout: .seconds(30))
    }
  }

  /// The worker processes an instance factory started, in order.
  final class WorkerLog: Sendable {
    private let pids = Mutex<[pid_t]>([])
    var all: [pid_t] { pids.withLock { $0 } }

    func factory(_ base: InstanceFactory) -> InstanceFactory {
      InstanceFactory { [self] plugin, config, target throws(HostError) in
        let instance = try base.makeInstance(of: plugin, config: config, target: target)
        if let worker = instance as? WorkerInstance { pids.withLock { $0.append(worker.workerProcessID) } }
        return instance
      }
    }
  }

  static var scanner: PluginScanner {
    ScannerProcess(executable: HostProcess.executable, timeout: .seconds(30)) { ["__scan", $0] }.scanner
  }

  static func harness(workers: Bool = false) throws -> Harness {
    let (folder, file) = try ReloadFixture.folder()
    let builds = PluginBuilds(
      loading: workers ? .workers : .inProcess, scanner: workers ? scanner : nil, folder: "\(folder)/builds")
    let log = WorkerLog()
    let base: InstanceFactory = workers ? .worker(executable: HostProcess.executable) : .inProcess
    let journaled = try JournaledStore.start(
      try builds.launch(file, feature: "reloadable"), journalPath: "\(folder)/reloadable.jsonl",
      options: Store.Options(rendersViews: true), instances: log.factory(builds.factory(wrapping: base)))
    return Harness(journaled: journaled, builds: builds, file: file, workers: log)
  }

  @Test func theRunningBuildsBytesStagedAgainForWorkersTakeItsManifestWithoutAScan() throws {
    // given workers' builds whose scanner counts its scans, and the build a run started with
    let (folder, file) = try ReloadFixture.folder()
    let scans = Mutex(0)
    let real = Self.scanner
    let counting: PluginScanner = { path in
      scans.withLock { $0 += 1 }
      return real(path)
    }
    let builds = PluginBuilds(loading: .workers, scanner: counting, folder: "\(folder)/builds")
    let first = try builds.launch(file, feature: "reloadable")
    #expect(scans.withLock { $0 } == 1)
    // when the same bytes are staged again (`:reload` of a file that did not change)
    let again = try builds.stage(file, feature: "reloadable")
    // then no scan ran, and the new copy has the running build's manifest and ABI
    #expect(scans.withLock { $0 } == 1)
    #expect(again.plugin.path != first.path)
    #expect(again.plugin.manifest == first.manifest)
    #expect(again.plugin.abiMinor == first.abiMinor && again.plugin.structSize == first.structSize)
    #expect(again.hash == BuildFile.hash(file))
    // and a build with other bytes is scanned
    try ReloadFixture.build(.withDouble, into: file)
    let changed = try builds.stage(file, feature: "reloadable")
    #expect(scans.withLock { $0 } == 2)
    #expect(changed.version == "1.1.0")
  }

  @Test func aStagedBuildFindsThePrivateLibrariesOfItsOriginalFolderBesideIt() throws {
    let harness = try Self.harness()
    defer { harness.store.stop() }
    // given a companion library beside the plugin file (kittens' http client is one)
    let folder = String(harness.file[..<harness.file.lastIndex(of: "/")!])
    let companion = "\(folder)/libreloadable-extra_private.so"
    try Data("companion".utf8).write(to: URL(fileURLWithPath: companion))
    // when a new build is staged, then the copy's folder holds it too, as a link to the original
    let build = try harness.rebuild(.withDouble)
    let staged = String(build.plugin.path[..<build.plugin.path.lastIndex(of: "/")!])
    #expect(staged != folder)
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: "\(staged)/libreloadable-extra_private.so") == companion
    )
  }

  @Test func aNewBuildTakesTheStateOverHearsRestoredAndIsJournaled() throws {
    // given version 1.0.0 at count 2
    let harness = try Self.harness()
    defer { harness.store.stop() }
    harness.send("increment", "increment")
    let firstHash = try #require(BuildFile.hash(harness.file))
    // when the file is rebuilt as 1.1.0 (a new action) and reloaded
    let build = try harness.rebuild(.withDouble)
    let report = try harness.reload(build).get()
    harness.send("double")
    // then the new build kept the count, heard `restored` first, and runs the new action
    #expect(report == ReloadReport(feature: "reloadable", from: "1.0.0", to: "1.1.0", cancelledEffects: 0, sequence: 3))
    #expect(try harness.store.state() == #"{"count":4}"#)
    #expect(harness.events.appliedTypes == ["created", "increment", "increment", "restored", "double"])
    #expect(harness.events.views.last == "Reloadable 1.1.0\n  count: 4")
    // and the journal names both builds, then the state the new build took over
    let records = try Journal.read(path: harness.journalPath).records()
    let reload = JournalReload(
      seq: 3, feature: "reloadable", from: .init(version: "1.0.0", hash: firstHash),
      to: .init(version: "1.1.0", hash: try #require(BuildFile.hash(harness.file))))
    let index = try #require(records.firstIndex(of: .reload(reload)))
    #expect(records[index + 1] == .snapshot(seq: 3, state: #"{"count":2}"#))
    #expect(firstHash != reload.to.hash)
  }

  @Test func aBuildThatRefusesTheStateLeavesTheOldOneRunningUntilAFixedBuildComes() throws {
    // given 1.0.0 at count 1
    let harness = try Self.harness()
    defer { harness.store.stop() }
    harness.send("increment")
    // when a build that renamed the state's field is reloaded
    let renamed = try harness.rebuild(.renamedField)
    let refused = harness.reload(renamed)
    // then it says why, and 1.0.0 goes on with its state
    guard case .failure(let error) = refused else {
      Issue.record("a build that refuses the state was reloaded")
      return
    }
    #expect(error.message == #"reloadable 1.2.0 refused the running state: the state has no "total" (a whole number)"#)
    #expect(error.help?.contains("goes on with its state") == true)
    harness.send("increment")
    #expect(try harness.store.state() == #"{"count":2}"#)
    #expect(try harness.store.view() == "Reloadable 1.0.0\n  count: 2")
    #expect(!harness.events.appliedTypes.contains("restored"))
    // when a fixed build comes, it reloads
    let fixed = try harness.rebuild(.withDouble)
    #expect(try harness.reload(fixed).get().from == "1.0.0")
    harness.send("double")
    #expect(try harness.store.state() == #"{"count":4}"#)
  }

  @Test func effectsInFlightAreCancelledWithTheOldInstanceAndCounted() throws {
    // given an effect in flight (only stop ends it)
    let harness = try Self.harness()
    defer { harness.store.stop() }
    harness.send("wait")
    #expect(harness.store.effectsRunning == 1)
    // when reloaded
    let report = try harness.reload(try harness.rebuild(.withDouble)).get()
    // then the report counts it, and the store settles
    #expect(report.cancelledEffects == 1)
    #expect(harness.store.waitUntilSettled(timeout: .seconds(30)) == .settled)
    #expect(harness.store.effectsRunning == 0)
  }

  @Test func restoringAJournalWithAReloadUsesTheNewBuild() throws {
    // given a run reloaded from 1.0.0 to 1.1.0, with actions after the reload
    let harness = try Self.harness()
    harness.send("increment")
    let build = try harness.rebuild(.withDouble)
    _ = try harness.reload(build).get()
    harness.send("double", "increment")
    harness.store.stop()
    // when the journal is opened again with the new build
    let opened = try SessionJournal.open(at: harness.journalPath, plugin: build.plugin)
    defer { opened.journal.close() }
    // then it restores from the state the new build took over, then the actions after it
    #expect(opened.restorePoint.state == #"{"count":1}"#)
    #expect(
      opened.restorePoint.actions.map(\.json) == [
        #"{"type":"restored"}"#, #"{"type":"double"}"#, #"{"type":"increment"}"#,
      ])
    let instance = try InstanceFactory.inProcess.makeInstance(of: build.plugin, config: "{}", target: SilentTarget())
    defer { instance.destroy() }
    try opened.restorePoint.apply(to: instance)
    #expect(try instance.snapshot() == #"{"count":3}"#)
  }

  @Test func aBuildThatCrashesOnLoadCostsTheScannerNotTheRunningFeature() throws {
    // given 1.0.0 in a worker
    let harness = try Self.harness(workers: true)
    defer { harness.store.stop() }
    harness.send("increment")
    // when the file is rebuilt as a build whose entry function crashes
    #expect {
      _ = try harness.rebuild(.crashingOnLoad)
    } throws: { error in
      let message = (error as? HostError)?.message ?? "\(error)"
      return message.hasPrefix("cannot reload reloadable from '\(harness.file)': crashed with signal 11")
    }
    // then the running feature goes on, and no copy of the bad build is left
    harness.send("increment")
    #expect(try harness.store.state() == #"{"count":2}"#)
    let staged =
      (try? FileManager.default.contentsOfDirectory(
        atPath: "\(URL(fileURLWithPath: harness.file).deletingLastPathComponent().path)/builds")) ?? []
    #expect(staged.count == 1)
  }

  @Test func aReloadInWorkersStartsANewWorkerAndEndsTheOldOne() throws {
    // given 1.0.0 in a worker
    let harness = try Self.harness(workers: true)
    harness.send("increment")
    // when reloaded twice
    _ = try harness.reload(try harness.rebuild(.withDouble)).get()
    _ = try harness.reload(try harness.rebuild(.first)).get()
    harness.send("increment")
    // then each build ran in a worker of its own, and only the last one is alive
    let pids = harness.workers.all
    #expect(pids.count == 3)
    for pid in pids.dropLast() { #expect(kill(pid, 0) == -1 && errno == ESRCH, "worker \(pid) is still there") }
    #expect(kill(pids[2], 0) == 0)
    #expect(try harness.store.state() == #"{"count":2}"#)
    harness.store.stop()
    #expect(kill(pids[2], 0) == -1)
  }
}
