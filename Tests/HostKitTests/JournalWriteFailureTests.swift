import FeatureTesting
import Foundation
import HostKit
import Testing

/// A small tmpfs, mounted for one test: a real full disk. Needs root (CAP_SYS_ADMIN).
struct SmallDisk {
  let folder: String

  /// Whether this process may mount one: tried once, with a mount and an unmount.
  static let available: Bool = {
    guard getuid() == 0, let disk = try? SmallDisk(bytes: 64 * 1024) else { return false }
    disk.unmount()
    return true
  }()

  init(bytes: Int) throws {
    folder = try FixturePlugin.temporaryFolder()
    guard mount("tmpfs", folder, "tmpfs", 0, "size=\(bytes)") == 0 else {
      throw HostError("cannot mount a tmpfs on '\(folder)': \(String(cString: strerror(errno)))")
    }
  }

  /// Writes a file until the disk is full; returns its path.
  func fill() -> String {
    let path = "\(folder)/filler"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { close(fd) }
    let chunk = [UInt8](repeating: 7, count: 4096)
    while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
    return path
  }

  func unmount() {
    umount2(folder, Int32(MNT_DETACH))
    try? FileManager.default.removeItem(atPath: folder)
  }
}

@Suite("A journal that cannot be written", .enabled(if: SmallDisk.available, "needs root to mount a small tmpfs"))
struct JournalWriteFailureTests {
  @Test func aFullDiskIsToldAtOnceMarksTheViewRetriesAndLosesNothingOnceThereIsRoom() throws {
    let disk = try SmallDisk(bytes: 256 * 1024)
    defer { disk.unmount() }
    let harness = try SessionRuntimeTests.harness(live: true, session: "demo", sessions: disk.folder)
    let runtime = harness.runtime
    defer { runtime.close() }
    try runtime.open()
    let counter = try #require(runtime.focused)
    try runtime.send("increment", to: counter)
    runtime.settle()
    #expect(counter.store.unsavedMark == nil)
    // when the disk is full and more actions come than the journal's last page holds
    let filler = disk.fill()
    for _ in 0..<200 { try runtime.send("increment", to: counter) }
    runtime.settle()
    // then the failure is reported at once, the view is marked unsaved, and the run knows
    let errors = harness.reporter.errors.withLock { $0.map(\.message) }
    #expect(errors.contains { $0.contains("No space left on device") }, "\(errors)")
    #expect(harness.reporter.notices.withLock { $0 }.contains(.journalUnsaved(feature: "counter")))
    let mark = try #require(counter.store.unsavedMark)
    #expect(mark.hasPrefix("(not saved: cannot write"))
    #expect(harness.sink.writes.last?.hasSuffix(mark) == true)
    #expect(runtime.hadJournalTrouble)
    #expect(try runtime.state(of: counter) == #"{"clicks":201,"count":201}"#)
    // when there is room again, the next change saves everything
    try FileManager.default.removeItem(atPath: filler)
    try runtime.send("increment", to: counter)
    runtime.settle()
    #expect(counter.store.unsavedMark == nil)
    #expect(harness.reporter.notices.withLock { $0 }.contains(.journalSaved(feature: "counter")))
    runtime.close()
    let records = try Journal.read(path: "\(disk.folder)/demo.jsonl").records()
    let increments = records.filter { record in
      if case .action(let action) = record { return action.json == #"{"type":"increment"}"# }
      return false
    }
    #expect(increments.count == 202)
  }

  @Test func aRunWhoseJournalCouldNotBeWrittenExitsWithStatusOne() async throws {
    let disk = try SmallDisk(bytes: 256 * 1024)
    defer { disk.unmount() }
    let environment = ["XDG_STATE_HOME": disk.folder]
    let first = try await HostProcess.run(
      ["run", "counter", "--session", "demo"], input: "increment\n", environment: environment)
    #expect(first.status == 0)
    _ = disk.fill()
    let input = String(repeating: "increment\n", count: 200) + ":state\n"
    let result = try await HostProcess.run(
      ["run", "counter", "--session", "demo"], input: input, environment: environment)
    #expect(result.status == 1)
    #expect(result.stdout.hasPrefix(#"{"clicks":201,"count":201}"#))
    #expect(result.stdout.contains("(not saved: cannot write"))
    #expect(result.stderr.contains("No space left on device"))
    #expect(result.stderr.contains("counter goes on unsaved"))
    #expect(result.stderr.contains("counter stopped while its journal could not be written"))
  }
}
