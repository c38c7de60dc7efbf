import HostKit
import Testing

@Suite("Journal history and time travel")
struct JournalHistoryTests {
  static func action(_ seq: Int, _ type: String = "increment") -> JournalRecord {
    .action(JournalAction(seq: seq, source: .user, json: #"{"type":"\#(type)"}"#))
  }

  static func travel(_ seq: Int, _ kind: TravelKind, to: Int?, state: String) -> JournalRecord {
    .travel(JournalTravel(seq: seq, kind: kind, to: to, state: state))
  }

  @Test func undoneActionsLeaveTheEffectiveHistoryButStayInTheJournal() {
    // given: 1, 2, 3, then undo to 2 and a new action 5
    let history = JournalHistory(
      path: "s.jsonl",
      records: [
        Self.action(1), Self.action(2), Self.action(3, "decrement"),
        Self.travel(4, .undo, to: 2, state: #"{"clicks":2,"count":2}"#), Self.action(5),
      ])
    // then
    #expect(history.currentSeq == 5)
    #expect(history.effectiveActions().map(\.seq) == [1, 2, 5])
    #expect(history.effectiveActions(at: 3).map(\.seq) == [1, 2, 3])
    #expect(history.effectiveActions(at: 4).map(\.seq) == [1, 2])
    #expect(history.undoTarget == 4)
  }

  @Test func undoAfterUndoWalksBackThroughTheEffectiveHistory() {
    // given: 1, 2, undo to 1
    var history = JournalHistory(
      path: "s.jsonl",
      records: [Self.action(1), Self.action(2), Self.travel(3, .undo, to: 1, state: "{}")])
    // then
    #expect(history.undoTarget == 0)
    // when: undo again, to 0
    history.append(Self.travel(4, .undo, to: 0, state: "{}"))
    // then: nothing left to undo
    #expect(history.effectiveActions().isEmpty)
    #expect(history.undoTarget == nil)
  }

  @Test func aLoadedStateStartsAnEmptyEffectiveHistory() {
    let history = JournalHistory(
      path: "s.jsonl",
      records: [Self.action(1), Self.travel(2, .load, to: nil, state: "{}"), Self.action(3)])
    #expect(history.effectiveActions().map(\.seq) == [3])
    #expect(history.undoTarget == 2)
  }

  @Test func gotoStartsFromTheNearestRecordedStateAtOrBeforeTheTarget() throws {
    // given
    let history = JournalHistory(
      path: "s.jsonl",
      records: [
        Self.action(1), Self.action(2), .snapshot(seq: 2, state: "S2"), Self.action(3),
        Self.action(4),
        Self.travel(5, .goto, to: 1, state: "S1"), Self.action(6), Self.action(7),
      ])
    // when / then: the state after 4 = S2 + 3 + 4
    let four = try history.restorePoint(to: 4)
    #expect(four.state == "S2")
    #expect(four.stateSeq == 2)
    #expect(four.actions.map(\.seq) == [3, 4])
    #expect(four.lastSeq == 4)
    // the state after 7 = the travel's state + 6 + 7
    let seven = try history.restorePoint(to: 7)
    #expect(seven.state == "S1")
    #expect(seven.stateSeq == 5)
    #expect(seven.actions.map(\.seq) == [6, 7])
    // the state after 1 has no recorded state before it: a fresh instance + 1
    let one = try history.restorePoint(to: 1)
    #expect(one.state == nil)
    #expect(one.actions.map(\.seq) == [1])
    // seq 0 is the fresh instance
    #expect(try history.restorePoint(to: 0).actions.isEmpty)
  }

  @Test func gotoASeqThatDoesNotExistIsAnError() {
    let history = JournalHistory(path: "s.jsonl", records: [Self.action(1)])
    let error = #expect(throws: HostError.self) { try history.restorePoint(to: 2) }
    #expect(error?.message == "there is no seq 2 in journal 's.jsonl'")
    #expect(error?.help == "pick a seq from 0 to 1")
    #expect(
      error?.failure as? JournalFailure == .noSuchSeq(path: "s.jsonl", seq: 2, lastSeq: 1))
  }

  @Test func aJournalReadFromDiskGivesTheSameHistory() throws {
    // given
    let scratch = try JournalScratch()
    let (path, writer) = try scratch.counterJournal(increments: 2)
    try writer.append(travel: .undo, to: 1, state: #"{"clicks":1,"count":1}"#)
    try writer.close()
    // when
    let history = try Journal.read(path: path).history()
    // then
    #expect(history.effectiveActions().map(\.seq) == [1])
    #expect(history.undoTarget == 0)
  }

  @Test func aNotedStateIsWhereATravelStartsWithoutReplaying() throws {
    // given: five actions, a snapshot at 0 only, and the state after 3 noted in memory
    var history = JournalHistory(
      path: "s.jsonl",
      records: [.snapshot(seq: 0, state: "S0")] + (1...5).map { Self.action($0) })
    history.note("S3", at: 3)
    // when a travel goes to 4
    let point = try history.restorePoint(to: 4)
    // then it starts from the noted state, with the one action after it
    #expect(point.state == "S3")
    #expect(point.stateSeq == 3)
    #expect(point.actions.map(\.seq) == [4])
    // and a seq before the note still replays from the snapshot
    #expect(try history.restorePoint(to: 2).state == "S0")
    #expect(try history.restorePoint(to: 2).actions.map(\.seq) == [1, 2])
  }

  @Test func aTravelsSeqIsNotNotedTwice() throws {
    // given: an action, then an undo carrying its state
    var history = JournalHistory(
      path: "s.jsonl",
      records: [.snapshot(seq: 0, state: "S0"), Self.action(1), Self.travel(2, .undo, to: 0, state: "T")])
    // when another state is noted at the travel's seq
    history.note("other", at: 2)
    // then the travel's own state stays the one a travel to it takes
    #expect(try history.restorePoint(to: 2).state == "T")
  }

  @Test func theLastTypedActionIsFoundWalkingBackOnlyThroughTheEffectiveHistory() {
    // given: typed 1 and 2, an effect's 3, then an undo to 1 and a feedback's 5
    let history = JournalHistory(
      path: "s.jsonl",
      records: [
        Self.action(1), Self.action(2),
        .action(JournalAction(seq: 3, source: .effect, json: #"{"type":"loaded"}"#)),
        Self.travel(4, .undo, to: 1, state: "{}"),
        .action(JournalAction(seq: 5, source: .feedback, json: #"{"type":"tick"}"#)),
      ])
    // then the last typed action of the effective history (1, 5) is 1, not the undone 2
    #expect(history.lastUserAction?.seq == 1)
    let loaded = JournalHistory(path: "s.jsonl", records: [Self.travel(1, .load, to: nil, state: "{}")])
    #expect(loaded.lastUserAction == nil)
  }
}
