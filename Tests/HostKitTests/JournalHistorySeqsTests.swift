import HostKit
import Testing

/// `JournalHistory.seqs()`: exactly the seqs `restorePoint(to:)` finds a state for.
@Suite("Journal history: the seqs time travel takes")
struct JournalHistorySeqsTests {
  static func action(_ seq: Int) -> JournalRecord {
    .action(JournalAction(seq: seq, source: .user, json: #"{"type":"increment"}"#))
  }

  static func travel(_ seq: Int, _ kind: TravelKind, to: Int?) -> JournalRecord {
    .travel(JournalTravel(seq: seq, kind: kind, to: to, state: "{}"))
  }

  struct Case: CustomTestStringConvertible, Sendable {
    let id: String
    let records: [JournalRecord]
    var testDescription: String { id }
  }

  static let cases: [Case] = [
    Case(id: "snapshot at 0, actions", records: [.snapshot(seq: 0, state: "{}"), action(1), action(2)]),
    Case(
      id: "undo, goto and load",
      records: [
        .snapshot(seq: 0, state: "{}"), action(1), action(2), travel(3, .undo, to: 1), travel(4, .goto, to: 0),
        travel(5, .load, to: nil), action(6),
      ]),
    // A journal whose first state is a later snapshot: the seqs before it cannot be reached.
    Case(id: "first snapshot at 2", records: [action(1), action(2), .snapshot(seq: 2, state: "{}"), action(3)]),
    Case(id: "no snapshot, then a travel", records: [action(1), travel(2, .load, to: nil), action(3)]),
    Case(id: "empty", records: []),
  ]

  @Test(arguments: cases)
  func theListedSeqsAreExactlyTheOnesARestorePointIsFoundFor(_ test: Case) {
    let history = JournalHistory(path: "s.jsonl", records: test.records)
    let listed = history.seqs().map(\.seq)
    let reachable = (0...history.currentSeq + 1).filter { seq in
      guard let point = try? history.restorePoint(to: seq) else { return false }
      return point.state != nil
    }
    #expect(listed == reachable)
  }

  @Test func anUndoneActionIsListedAsNotInTheCurrentState() {
    let history = JournalHistory(
      path: "s.jsonl",
      records: [.snapshot(seq: 0, state: "{}"), Self.action(1), Self.action(2), Self.travel(3, .undo, to: 1)])
    #expect(
      history.seqs().map(\.kind) == [
        .start,
        .action(JournalAction(seq: 1, source: .user, json: #"{"type":"increment"}"#), effective: true),
        .action(JournalAction(seq: 2, source: .user, json: #"{"type":"increment"}"#), effective: false),
        .travel(JournalTravel(seq: 3, kind: .undo, to: 1, state: "{}")),
      ])
  }
}
