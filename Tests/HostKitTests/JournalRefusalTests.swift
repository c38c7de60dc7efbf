import Foundation
import HostKit
import Testing

/// Refusal lines: an action the feature refused, journaled without a seq of its own
/// (docs/journal.md, Refusals).
@Suite("Journal refusal lines")
struct JournalRefusalTests {
  static let nope = #"{"type":"nope"}"#

  @Test func aRefusalIsWrittenAtTheCurrentSeqWithItsTimeAndTakesNoSeq() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header, clock: JournalFixtures.clock)
    try writer.append(action: JournalFixtures.increment, source: .user)
    // when
    let written = try writer.append(refused: Self.nope, source: .user, error: "unknown \"nope\"")
    try writer.append(refused: "not json", source: .effect, error: "bad")
    // then: the next action still takes seq 2
    #expect(try writer.append(action: JournalFixtures.increment, source: .user) == 2)
    try writer.close()
    #expect(written == JournalRefusal(seq: 1, source: .user, action: Self.nope, error: "unknown \"nope\"", at: 1500))
    let lines = try scratch.text("s.jsonl").split(separator: "\n").dropFirst().map(String.init)
    #expect(
      lines == [
        #"{"action":{"type":"increment"},"at":1500,"seq":1,"source":"user"}"#,
        #"{"at":1500,"error":"unknown \"nope\"","refused":{"type":"nope"},"seq":1,"source":"user"}"#,
        #"{"at":1500,"error":"bad","refused":"not json","seq":1,"source":"effect"}"#,
        #"{"action":{"type":"increment"},"at":1500,"seq":2,"source":"user"}"#,
      ])
  }

  @Test func restoreAndHistorySkipRefusalsAndTheHistoryListsThemBesideTheirSeq() throws {
    // given
    let text =
      [
        JournalFixtures.headerLine,
        #"{"action":{"type":"increment"},"at":10,"seq":1,"source":"user"}"#,
        #"{"at":20,"error":"no","refused":{"type":"nope"},"seq":1,"source":"user"}"#,
        #"{"action":{"type":"increment"},"at":30,"seq":2,"source":"user"}"#,
      ].joined(separator: "\n") + "\n"
    // when
    let journal = try Journal(bytes: Array(text.utf8), path: "s.jsonl")
    // then
    #expect(journal.actionCount == 2)
    #expect(journal.lastSeq == 2)
    #expect(journal.lastActionAt == 30)
    #expect(try journal.restorePoint().actions.map(\.seq) == [1, 2])
    let refusal = JournalRefusal(seq: 1, source: .user, action: Self.nope, error: "no", at: 20)
    #expect(try journal.records().map(\.seq) == [1, 1, 2])
    #expect(try journal.records()[1] == .refusal(refusal))
    let history = try journal.history()
    #expect(history.refusals(after: 1) == [refusal])
    #expect(history.refusals(after: 2).isEmpty)
    #expect(history.entries(from: 0, count: 10).map(\.seq) == [1, 2])
    #expect(history.effectiveActions().map(\.seq) == [1, 2])
  }

  struct BadRefusal: CustomTestStringConvertible, Sendable {
    let id: String
    let line: String
    let says: String
    var testDescription: String { id }
  }

  @Test(
    "a refusal line that is not right is refused naming the line",
    arguments: [
      BadRefusal(
        id: "another seq", line: #"{"error":"no","refused":{"type":"nope"},"seq":2,"source":"user"}"#,
        says: "is a refusal at seq 2, but the records before it reach seq 1"),
      BadRefusal(
        id: "no error", line: #"{"refused":{"type":"nope"},"seq":1,"source":"user"}"#,
        says: #"a refusal has no "error""#),
      BadRefusal(
        id: "unknown source", line: #"{"error":"no","refused":{"type":"nope"},"seq":1,"source":"me"}"#,
        says: #"a refusal has no "source""#),
      BadRefusal(
        id: "refused a number", line: #"{"error":"no","refused":7,"seq":1,"source":"user"}"#,
        says: #"its "refused" is neither a JSON object nor a text"#),
      BadRefusal(
        id: "bad time", line: #"{"at":-1,"error":"no","refused":{"type":"nope"},"seq":1,"source":"user"}"#,
        says: #"has "at": -1, which is not a time"#),
    ])
  func aBadRefusalLineIsRefused(_ bad: BadRefusal) throws {
    let text =
      [
        JournalFixtures.headerLine, #"{"action":{"type":"increment"},"seq":1,"source":"user"}"#, bad.line,
        #"{"action":{"type":"increment"},"seq":2,"source":"user"}"#,
      ].joined(separator: "\n") + "\n"
    let error = #expect(throws: HostError.self) { try Journal(bytes: Array(text.utf8), path: "s.jsonl") }
    #expect(error?.message.hasPrefix("journal 's.jsonl' line 3 ") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains(bad.says) == true, "\(error?.message ?? "")")
  }
}
