import FeatureTesting
import Foundation
import HostKit
import Testing

@Suite("Journal crash records")
struct JournalCrashRecordTests {
  static let header = JournalFixtures.headerLine
  static func action(_ seq: Int, _ type: String = "increment", source: String = "user") -> String {
    #"{"action":{"type":"\#(type)"},"seq":\#(seq),"source":"\#(source)"}"#
  }
  static let crashAt2 = #"{"applying":{"type":"boom"},"call":"dispatch","crash":"signal 11","seq":2}"#

  @Test func theWriterAppendsACrashAtTheCurrentSeqWithoutTakingOne() throws {
    // given a journal with two actions
    let scratch = try JournalScratch()
    let (path, writer) = try scratch.counterJournal(increments: 2)
    // when a crash, then an action, are appended
    try writer.append(
      crash: JournalCrash(seq: 2, call: "dispatch", action: #"{"type":"boom"}"#, loss: .signalled(11)))
    let next = try writer.append(action: #"{"type":"restored"}"#, source: .lifecycle)
    try writer.close()
    // then the crash line has the writer's layout, and the next action is seq 3
    #expect(next == 3)
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines[3] == Self.crashAt2)
  }

  @Test func aJournalWithCrashesRestoresReadsAndHasTheHistoryOfItsActions() throws {
    // given a journal: snapshot at 0, two actions, a crash, restored, a crash during render
    let text =
      [
        Self.header, #"{"seq":0,"state":{"clicks":0,"count":0}}"#, Self.action(1), Self.action(2), Self.crashAt2,
        Self.action(3, "restored", source: "lifecycle"), #"{"call":"render","crash":"exit 3","seq":3}"#,
        Self.action(4, "decrement"),
      ].joined(separator: "\n") + "\n"
    // when it is read
    let journal = try Journal(bytes: Array(text.utf8), path: "s.jsonl", feature: "counter")
    // then the crashes take no seq, the restore skips them, and so does the history
    #expect(journal.lastSeq == 4)
    #expect(journal.actionCount == 4)
    let point = try journal.restorePoint()
    #expect(point.state == #"{"clicks":0,"count":0}"#)
    #expect(point.actions.map(\.seq) == [1, 2, 3, 4])
    let records = try journal.records()
    #expect(
      records.filter { if case .crash = $0 { true } else { false } } == [
        .crash(JournalCrash(seq: 2, call: "dispatch", action: #"{"type":"boom"}"#, loss: "signal 11")),
        .crash(JournalCrash(seq: 3, call: "render", action: nil, loss: "exit 3")),
      ])
    #expect(try journal.history().effectiveActions().map(\.json).last == #"{"type":"decrement"}"#)
    #expect(try journal.history().restorePoint(to: 4).actions.count == 4)
  }

  @Test func aCrashOfAnActionThatIsNotJSONKeepsItAsText() throws {
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header)
    try writer.append(crash: JournalCrash(seq: 0, call: "dispatch", action: "{oops", loss: .exited(1)))
    try writer.close()
    let records = try Journal.read(path: path).records()
    #expect(records == [.crash(JournalCrash(seq: 0, call: "dispatch", action: "{oops", loss: "exit 1"))])
  }

  static let badCrashes: [TextCase] = [
    TextCase(
      id: "seq-ahead", text: #"{"call":"dispatch","crash":"signal 11","seq":5}"#,
      expected: "line 3 is a crash at seq 5, but the records before it reach seq 1"),
    TextCase(
      id: "no-call", text: #"{"crash":"signal 11","seq":1}"#,
      expected: #"line 3 is not a journal record: a crash has no "call""#),
    TextCase(
      id: "loss-not-text", text: #"{"call":"dispatch","crash":11,"seq":1}"#,
      expected: #"line 3 is not a journal record: its "crash" is not a text"#),
    TextCase(
      id: "action-a-number", text: #"{"applying":7,"call":"dispatch","crash":"exit 1","seq":1}"#,
      expected: #"line 3 is not a journal record: a crash's "applying" is neither a JSON object nor a text"#),
  ]

  @Test("a bad crash line is an error naming the line", arguments: badCrashes)
  func aBadCrashLineIsAnErrorNamingTheLine(_ bad: TextCase) throws {
    let text = [Self.header, Self.action(1), bad.text, Self.action(2)].joined(separator: "\n") + "\n"
    let error = #expect(throws: HostError.self) {
      try Journal(bytes: Array(text.utf8), path: "s.jsonl", feature: "counter")
    }
    #expect(error?.message.contains(bad.expected) == true, "\(error?.message ?? "no error")")
  }

  @Test(
    "a loss is stored short and stable",
    arguments: [
      (InstanceLoss.signalled(11), "signal 11"), (.exited(3), "exit 3"),
      (.unresponsive(call: "dispatch", seconds: 10), "no answer to dispatch within 10 s"),
      (.unresponsive(call: "render", seconds: 0.5), "no answer to render within 0.5 s"),
    ])
  func aLossIsStoredShortAndStable(_ loss: InstanceLoss, _ stored: String) {
    #expect(JournalCrash.text(of: loss) == stored)
  }
}

@Suite("Recovery policy")
struct RecoveryPolicyTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let id: String
    /// Seconds since the first crash, for each crash.
    let crashes: [Int]
    let last: RecoveryPolicy.Decision
    var testDescription: String { id }
  }

  static let cases: [Case] = [
    Case(id: "first-crash", crashes: [0], last: .restart),
    Case(id: "second-crash", crashes: [0, 1], last: .restart),
    Case(id: "three-in-a-second", crashes: [0, 0, 1], last: .close(crashes: 3)),
    Case(id: "three-just-within-60s", crashes: [0, 30, 59], last: .close(crashes: 3)),
    Case(id: "three-over-60s", crashes: [0, 30, 60], last: .restart),
    Case(id: "old-ones-forgotten", crashes: [0, 10, 100, 110], last: .restart),
    Case(id: "three-late-ones", crashes: [0, 100, 110, 120], last: .close(crashes: 3)),
  ]

  @Test("three crashes within 60 s close; older ones are forgotten", arguments: cases)
  func decisions(_ test: Case) {
    // given a policy under a manual clock
    let clock = ManualClock()
    var policy = RecoveryPolicy(now: clock.now)
    var elapsed = 0
    var decisions: [RecoveryPolicy.Decision] = []
    // when the crashes happen at their times
    for time in test.crashes {
      clock.advance(by: .seconds(time - elapsed))
      elapsed = time
      decisions.append(policy.crashed())
    }
    // then the last one decides as expected, and every one before it restarted
    #expect(decisions.last == test.last)
    #expect(decisions.dropLast().allSatisfy { $0 == .restart })
  }
}
