import FeatureTesting
import Foundation
import Testing

@testable import HostKit

@Suite("Worker spare and private folders", .serialized)
struct WorkerSpareTests {
  /// Settings no other test uses: the spare is one process for the whole test run, and a worker
  /// started with other settings never takes it.
  static func ownSettings() throws -> (settings: WorkerSettings, folder: String) {
    let folder = try FixturePlugin.temporaryFolder()
    let executable = "\(folder)/host"
    try FileManager.default.createSymbolicLink(atPath: executable, withDestinationPath: HostProcess.executable)
    return (WorkerSettings(executable: executable, callTimeout: 10), folder)
  }

  @Test func aPreparedWorkerServesTheFirstInstanceWithTheSameSettings() throws {
    let (settings, folder) = try Self.ownSettings()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // given a spare started for these settings
    InstanceFactory.worker(settings).prepare()
    let spare = try #require(WorkerSpare.shared.preparedProcessID)
    // when an instance is made with other settings, it starts a worker of its own
    let other = try WorkerFixtures.worker(CounterLibrary.path, target: CallbackLog())
    defer { other.destroy() }
    #expect(other.workerProcessID != spare)
    #expect(WorkerSpare.shared.preparedProcessID == spare)
    // and one made with the same settings takes the spare, which serves it
    let instance = try InstanceFactory.worker(settings).makeInstance(
      of: try PluginLoader.load(CounterLibrary.path), config: "{}", target: CallbackLog())
    defer { instance.destroy() }
    let worker = try #require(instance as? WorkerInstance)
    #expect(worker.workerProcessID == spare)
    #expect(WorkerSpare.shared.preparedProcessID == nil)
    try instance.start()
    _ = try instance.dispatch(#"{"type":"created"}"#)
    #expect(try instance.dispatch(#"{"type":"increment"}"#))
    #expect(try instance.snapshot() == #"{"clicks":1,"count":1}"#)
  }

  @Test func aSparePreparedAgainWithTheSameSettingsIsKeptAndWithOthersReplaced() throws {
    let (settings, folder) = try Self.ownSettings()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    defer { InstanceFactory.discardPrepared() }
    // given a spare started for these settings
    WorkerSpare.shared.prepare(settings, here: true)
    let first = try #require(WorkerSpare.shared.preparedProcessID)
    // when the run asks for one with the same settings, that spare is kept
    WorkerSpare.shared.prepare(settings, here: true)
    #expect(WorkerSpare.shared.preparedProcessID == first)
    // and when it asks with other settings, a new one replaces it and the first ends
    var other = settings
    other.sandbox.enabled.toggle()
    WorkerSpare.shared.prepare(other, here: true)
    let second = try #require(WorkerSpare.shared.preparedProcessID)
    #expect(second != first)
    #expect(WorkerFixtures.isGone(first, within: .seconds(5)))
  }

  @Test func aSparePreparedHereHasStartedWhenPrepareReturns() throws {
    let (settings, folder) = try Self.ownSettings()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    defer { InstanceFactory.discardPrepared() }
    // when a spare is prepared to start on the calling thread (the CLI's main thread does)
    WorkerSpare.shared.prepare(settings, here: true)
    // then its process was started before prepare returned: no other thread to wait for
    let started = try #require(WorkerSpare.shared.startedProcessID)
    #expect(WorkerSpare.shared.preparedProcessID == started)
    #expect(kill(started, 0) == 0)
  }

  @Test func aSpareNobodyTookIsEndedWhenTheRunEnds() throws {
    let (settings, folder) = try Self.ownSettings()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    // given a spare nobody takes
    InstanceFactory.worker(settings).prepare()
    let spare = try #require(WorkerSpare.shared.preparedProcessID)
    // when the run ends
    InstanceFactory.discardPrepared()
    // then its process is gone and nothing is kept
    #expect(WorkerFixtures.isGone(spare, within: .seconds(5)))
    #expect(WorkerSpare.shared.preparedProcessID == nil)
  }

  @Test func theUsersFolderOfWorkerFoldersIsMadeClosedAndRefusedWhenTheNameIsTakenOrOpen() throws {
    // given an empty temporary folder
    let base = try FixturePlugin.temporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: base) }
    let path = "\(base)/featurehost-workers-\(geteuid())"
    // when the folder is asked for, it is made, mode 0700
    #expect(WorkerScratch.userFolder(in: base) == path)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o700)
    // and one others may open is refused
    chmod(path, 0o755)
    #expect(WorkerScratch.userFolder(in: base) == nil)
    // and so is a link in its place, even to a folder of the user's
    try FileManager.default.removeItem(atPath: path)
    let elsewhere = "\(base)/elsewhere"
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
    chmod(elsewhere, 0o700)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
    #expect(WorkerScratch.userFolder(in: base) == nil)
    // and a file
    try FileManager.default.removeItem(atPath: path)
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    #expect(WorkerScratch.userFolder(in: base) == nil)
  }
}
