import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Reloads that overlap")
struct ReloadOverlapTests {
  @Test func twoReloadsAtOnceBothTakeTheStateAndLeaveOneWorker() throws {
    // given the reload fixture in a worker, rebuilt as 1.1.0 since it started
    let (_, file) = try ReloadFixture.folder()
    let plugin = try PluginLoader.load(file)
    let workers = StoreReloadTests.WorkerLog()
    var settings = RunSettings()
    settings.temporaryRoot = try FixturePlugin.temporaryFolder()
    settings.instances = workers.factory(.worker(executable: HostProcess.executable))
    settings.reload.loading = .workers
    settings.reload.scanner = StoreReloadTests.scanner
    let reporter = RecordingReporter()
    let runtime = SessionRuntime(
      plugins: [PluginRecord(plugin)], flow: .single("reloadable"), settings: settings,
      renderers: [LineRenderer(sink: RecordingSink(), live: false)], reporter: reporter)
    defer { runtime.close() }
    try runtime.open()
    let feature = try #require(runtime.focused)
    try runtime.send("increment", to: feature)
    try ReloadFixture.build(.withDouble, into: file)
    // when two reloads of it start at the same time (each scans a copy beside a new worker)
    let failures = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
      do throws(HostError) {
        try runtime.reload(feature)
      } catch {
        failures.withLock { $0.append(error.message) }
      }
    }
    // then both reloaded with the state kept, and only the last worker is left
    #expect(failures.withLock { $0 } == [])
    let reloads = reporter.notices.withLock { $0 }.filter { if case .reloaded = $0 { true } else { false } }
    #expect(reloads.count == 2)
    // and the second names the build the first moved to as the one it replaced
    let steps = reloads.compactMap { notice -> String? in
      guard case .reloaded(let report) = notice else { return nil }
      return "\(report.from) -> \(report.to)"
    }
    #expect(steps == ["1.0.0 -> 1.1.0", "1.1.0 -> 1.1.0"])
    try runtime.send("double", to: feature)
    runtime.settle()
    #expect(try runtime.state(of: feature) == #"{"count":2}"#)
    let started = workers.all
    #expect(started.count == 3)
    let running = started.filter { kill($0, 0) == 0 }
    #expect(running.count == 1, "workers \(started), running \(running)")
  }
}
