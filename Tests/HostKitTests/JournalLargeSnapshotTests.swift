import FeatureTesting
import Foundation
import HostKit
import Testing

/// A state larger than a group commit goes from the plugin's bytes straight to the file.
@Suite("A large snapshot is written straight to the journal")
struct JournalLargeSnapshotTests {
  /// A state of `count` URLs, about 48 bytes each.
  static func state(urls count: Int) -> String {
    let urls = (0..<count).map { #""https://cdn2.thecatapi.com/images/\#(String($0, radix: 36)).jpg""# }
    return #"{"nextOffset":\#(count),"urls":[\#(urls.joined(separator: ","))]}"#
  }

  @Test func theLinesBeforeItTheSnapshotAndTheLinesAfterItAreReadBackInOrder() throws {
    let scratch = try JournalScratch()
    let path = scratch.file("large.jsonl")
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header)
    let state = Self.state(urls: 20_000)
    #expect(state.utf8.count > JournalWriter.Limits().maxBytes)
    try writer.append(action: JournalFixtures.increment, source: .user)
    try writer.append(action: JournalFixtures.increment, source: .user)
    #expect(writer.pendingLines == 2)
    // when the large state is appended
    var bytes = state
    try bytes.withUTF8 { try writer.append(snapshot: $0) }
    // then it went out with the lines pending before it, not into the pending buffer
    #expect(writer.pendingLines == 0)
    try writer.append(action: JournalFixtures.increment, source: .user)
    try writer.close()
    let records = try Journal.read(path: path).records()
    #expect(records.map(\.seq) == [1, 2, 2, 3])
    #expect(records[2] == .snapshot(seq: 2, state: state))
  }

  @Test func aSmallStateStaysInTheGroupCommit() throws {
    let scratch = try JournalScratch()
    let (path, writer) = try scratch.counterJournal("small.jsonl", increments: 1)
    var bytes = #"{"clicks":1,"count":1}"#
    try bytes.withUTF8 { try writer.append(snapshot: $0) }
    #expect(writer.pendingLines == 2)
    try writer.close()
    #expect(try Journal.read(path: path).records()[1] == .snapshot(seq: 1, state: #"{"clicks":1,"count":1}"#))
  }

  @Test func aLargeStateThatIsNotOneValidObjectIsRefusedAndTheJournalKeepsWhatItHad() throws {
    let scratch = try JournalScratch()
    let (path, writer) = try scratch.counterJournal("refused.jsonl", increments: 1)
    var broken = String(Self.state(urls: 20_000).dropLast(2)) + "}"
    #expect(throws: HostError.self) { try broken.withUTF8 { try writer.append(snapshot: $0) } }
    #expect(writer.pendingLines == 1)
    try writer.close()
    #expect(try Journal.read(path: path).records().map(\.seq) == [1])
  }

  @Test(.enabled(if: SmallDisk.available, "needs root to mount a small tmpfs"))
  func onAFullDiskTheLargeStateIsKeptPendingAndWrittenOnceThereIsRoom() throws {
    let disk = try SmallDisk(bytes: 4 << 20)
    defer { disk.unmount() }
    let path = "\(disk.folder)/full.jsonl"
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header)
    try writer.append(action: JournalFixtures.increment, source: .user)
    let filler = disk.fill()
    let state = Self.state(urls: 20_000)
    // when the disk is full: nothing is lost, the failure waits for the next commit
    var bytes = state
    try bytes.withUTF8 { try writer.append(snapshot: $0) }
    #expect(writer.pendingLines == 2)
    #expect(throws: HostError.self) { try writer.commit() }
    // when there is room again
    try FileManager.default.removeItem(atPath: filler)
    try writer.commit()
    try writer.close()
    let records = try Journal.read(path: path).records()
    #expect(records.map(\.seq) == [1, 1])
    #expect(records[1] == .snapshot(seq: 1, state: state))
  }
}
