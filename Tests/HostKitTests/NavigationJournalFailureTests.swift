import FeatureTesting
import Foundation
import HostKit
import Testing

/// A navigation journal that cannot be written is told as a feature journal's failed commit is:
/// at once, retried at each step, and in the exit status.
@Suite("A navigation journal that cannot be written")
struct NavigationJournalFailureTests {
  /// The limit on the size of any file the host writes (`ulimit -f`, in the 512-byte blocks of
  /// POSIX sh): the navigation journal outgrows it, the feature journals do not.
  static let fileSizeBlocks = 16

  /// Runs `host arguments...` with every write past `fileSizeBlocks` failing (EFBIG; SIGXFSZ,
  /// which would kill the host, is ignored, and the host inherits that).
  static func hostWithSmallFiles(_ arguments: [String], input: String, state: String) throws -> (
    stdout: String, stderr: String, status: Int32
  ) {
    var process = ChildProcess(
      "/bin/sh",
      arguments: ["-c", "trap '' XFSZ; ulimit -f \(fileSizeBlocks) && exec \"$0\" \"$@\"", HostProcess.executable]
        + arguments,
      environment: HostProcess.environment(adding: ["XDG_STATE_HOME": state]))
    process.standardInput = .bytes(Array(input.utf8))
    let result = try process.run(timeout: .seconds(600))
    return (result.outputText, result.errorText, result.termination.shellStatus)
  }

  // The TSan runtime stops with SIGBUS under a small file size limit: this test needs a host
  // without a sanitizer.
  @Test(.disabled(if: FixturePlugin.sanitizer != nil, "a sanitizer's runtime does not run under a file size limit"))
  func aNavigationJournalThatCannotBeWrittenIsToldAndTheExitStatusIsOne() async throws {
    let state = try FixturePlugin.temporaryFolder()
    let navigation = "\(state)/featurehost/demo.d/navigation.jsonl"
    // when 60 counters are opened over the first one and popped: 121 steps of about 150 bytes
    let input = String(repeating: ":open counter\n:back\n", count: 60) + "increment\n:state\n"
    let result = try Self.hostWithSmallFiles(["run", "counter", "--session", "demo"], input: input, state: state)
    // then the failure is told once, with its reason, and the run goes on and exits 1
    #expect(result.status == 1, "\(result.stderr)")
    #expect(result.stdout.contains(#"{"clicks":1,"count":1}"#))
    let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(errors.count == 1, "\(result.stderr)")
    #expect(errors.first?.contains("'\(navigation)'") == true, "\(result.stderr)")
    #expect(errors.first?.contains("File too large") == true, "\(result.stderr)")
    #expect(result.stderr.contains("navigation goes on unsaved"), "\(result.stderr)")
    #expect(result.stderr.contains("the session stopped while its navigation journal could not be written"))
    // and no feature journal failed
    #expect(!result.stderr.contains("counter goes on unsaved"), "\(result.stderr)")
    // and the navigation journal holds whole records, in order, up to the limit
    let (_, records, torn) = try NavigationJournal.read(at: navigation)
    #expect(!torn)
    #expect(records.count > 10 && records.count < 121, "\(records.count) records")
    #expect(records.map(\.seq) == Array(1...records.count))
    // and the session comes back on a disk that takes it
    let again = try await HostProcess.run(
      ["run", "counter", "--session", "demo"], input: ":state\n", environment: ["XDG_STATE_HOME": state])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.hasPrefix(#"{"clicks":1,"count":1}"#), "\(again.stdout)")
  }

  @Test(.enabled(if: SmallDisk.available, "needs root to mount a small tmpfs"))
  func stepsThatFailedAreWrittenInOrderByTheNextStepOnceThereIsRoom() throws {
    let disk = try SmallDisk(bytes: 64 * 1024)
    defer { disk.unmount() }
    let path = "\(disk.folder)/demo.d/navigation.jsonl"
    let journal = try NavigationJournal.create(at: path, flow: "main")
    let frames = [
      NavigationJournal.Frame(features: [NavigationJournal.Feature(id: "counter", journal: "demo.jsonl")], focus: 0)
    ]
    // when the disk is full and steps come until one fails (the file's last page takes a few)
    let filler = disk.fill()
    var steps = 0
    var failed = 0
    while failed < 3 && steps < 1000 {
      steps += 1
      do { try journal.append(step: "step \(steps)", frames: frames) } catch { failed += 1 }
      if failed > 0 { #expect(journal.isUnsaved) }
    }
    #expect(failed == 3)
    // then once there is room, the next step writes the failed ones first, in order
    try FileManager.default.removeItem(atPath: filler)
    steps += 1
    try journal.append(step: "step \(steps)", frames: frames)
    #expect(!journal.isUnsaved)
    #expect(journal.close() == nil)
    let (_, records, torn) = try NavigationJournal.read(at: path)
    #expect(!torn)
    #expect(records.map(\.step) == (1...steps).map { "step \($0)" })
    #expect(records.map(\.seq) == Array(1...steps))
  }
}
