import FeatureABI
import FeatureTesting
import Foundation
import HostKit
import Testing

struct JournalTestError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

@Suite("Journal writer")
struct JournalWriterTests {
  @Test func writtenRecordsHaveTheDocumentedLayout() throws {
    // given
    let scratch = try JournalScratch()
    let writer = try JournalWriter.create(
      at: scratch.file("s.jsonl"), header: JournalFixtures.header, clock: JournalFixtures.clock)
    // when
    try writer.append(action: #"{"type":"created"}"#, source: .lifecycle)
    try writer.append(action: JournalFixtures.increment, source: .user)
    try writer.append(snapshot: #"{"clicks":1,"count":1}"#)
    try writer.append(travel: .undo, to: 1, state: #"{"clicks":0,"count":0}"#)
    try writer.append(travel: .load, to: nil, state: #"{"clicks":9,"count":3}"#)
    try writer.close()
    // then
    #expect(
      try scratch.text("s.jsonl") == """
        \(JournalFixtures.headerLine)
        {"action":{"type":"created"},"at":1500,"seq":1,"source":"lifecycle"}
        {"action":{"type":"increment"},"at":1500,"seq":2,"source":"user"}
        {"seq":2,"state":{"clicks":1,"count":1}}
        {"seq":3,"state":{"clicks":0,"count":0},"to":1,"travel":"undo"}
        {"seq":4,"state":{"clicks":9,"count":3},"travel":"load"}

        """)
  }

  @Test func whatTheWriterWritesTheReaderReadsBack() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    var header = JournalFixtures.header
    header.config = #"{"step":2}"#
    let writer = try JournalWriter.create(at: path, header: header, clock: JournalFixtures.clock)
    // when
    let sources: [ActionSource] = [.lifecycle, .user, .effect, .feedback, .navigation]
    for (index, source) in sources.enumerated() {
      #expect(
        try writer.append(action: #"{"n":\#(index),"type":"x"}"#, source: source) == index + 1)
    }
    try writer.append(snapshot: #"{"n":4}"#)
    let travelSeq = try writer.append(travel: .goto, to: 2, state: #"{"n":1}"#)
    try writer.close()
    let journal = try Journal.read(path: path, feature: "counter")
    // then
    #expect(travelSeq == 6)
    #expect(journal.header == header)
    #expect(journal.lastSeq == 6)
    #expect(journal.actionCount == 5)
    #expect(journal.tornTail == nil)
    let expected: [JournalRecord] =
      sources.enumerated().map { index, source in
        .action(JournalAction(seq: index + 1, source: source, json: #"{"n":\#(index),"type":"x"}"#, at: 1500))
      } + [
        .snapshot(seq: 5, state: #"{"n":4}"#),
        .travel(JournalTravel(seq: 6, kind: .goto, to: 2, state: #"{"n":1}"#)),
      ]
    #expect(try journal.records() == expected)
  }

  @Test func appendedLinesReachTheFileOnlyAtCommit() throws {
    // given
    let scratch = try JournalScratch()
    let writer = try JournalWriter.create(
      at: scratch.file("s.jsonl"), header: JournalFixtures.header, clock: JournalFixtures.clock)
    let headerSize = try scratch.size("s.jsonl")
    // when
    try writer.append(action: JournalFixtures.increment, source: .user)
    try writer.append(action: JournalFixtures.increment, source: .user)
    // then
    #expect(try scratch.size("s.jsonl") == headerSize)
    #expect(writer.pendingLines == 2)
    // when
    try writer.commit()
    // then
    #expect(writer.pendingLines == 0)
    #expect(
      try scratch.text("s.jsonl").hasSuffix(
        #"{"action":{"type":"increment"},"at":1500,"seq":2,"source":"user"}"# + "\n"))
  }

  @Test func theWriterCommitsByItselfWhenTheBufferIsFull() throws {
    // given
    let scratch = try JournalScratch()
    let writer = try JournalWriter.create(
      at: scratch.file("s.jsonl"), header: JournalFixtures.header,
      limits: JournalWriter.Limits(maxLines: 3, maxBytes: 1 << 20))
    // when
    for _ in 0..<4 { try writer.append(action: JournalFixtures.increment, source: .user) }
    // then: three lines on disk, the fourth pending
    #expect(try scratch.text("s.jsonl").split(separator: "\n").count == 4)
    #expect(writer.pendingLines == 1)
  }

  @Test func aNewlineInsideActionOrStateJSONStaysOneLine() throws {
    // given: JSON as a C plugin may format it
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header, clock: JournalFixtures.clock)
    // when
    try writer.append(
      action: "{\n  \"type\": \"increment\",\n  \"note\": \"a\\nb\"\n}", source: .user)
    try writer.append(action: " {\"type\":\"decrement\"}\n", source: .user)
    try writer.append(snapshot: "{\"clicks\":2,\n\"count\":0}")
    try writer.close()
    // then
    let lines = try scratch.text("s.jsonl").split(separator: "\n", omittingEmptySubsequences: false)
    #expect(
      lines.dropFirst() == [
        #"{"action":{"note":"a\nb","type":"increment"},"at":1500,"seq":1,"source":"user"}"#,
        #"{"action":{"type":"decrement"},"at":1500,"seq":2,"source":"user"}"#,
        #"{"seq":2,"state":{"clicks":2,"count":0}}"#,
        "",
      ])
    #expect(try Journal.read(path: path).restorePoint().state == #"{"clicks":2,"count":0}"#)
  }

  @Test func anActionThatIsNotAJSONObjectIsRefusedAndLeavesNoTrace() throws {
    // given
    let scratch = try JournalScratch()
    let (path, writer) = try scratch.counterJournal(increments: 1)
    // when
    let error = #expect(throws: HostError.self) {
      try writer.append(action: "[1,\n2]", source: .user)
    }
    let stateError = #expect(throws: HostError.self) { try writer.append(snapshot: "{not json}") }
    try writer.append(action: JournalFixtures.decrement, source: .user)
    try writer.close()
    // then
    #expect(error?.message.contains("is not a JSON object") == true)
    #expect(stateError?.message.contains("is not a JSON object") == true)
    let journal = try Journal.read(path: path)
    #expect(try journal.records().map(\.seq) == [1, 2])
  }

  @Test func aLargeStateThatIsNotJSONIsRefusedWithWhereAndWhyAndLeavesNoTrace() throws {
    // given a state of 100,000 URLs whose last one is cut short
    let scratch = try JournalScratch()
    let (path, writer) = try scratch.counterJournal(increments: 1)
    let urls = (0..<100_000).map { #""https://cdn2.thecatapi.com/images/\#($0).jpg""# }.joined(separator: ",")
    let state = #"{"urls":["# + urls + #","https:}"#
    // when
    let error = #expect(throws: HostError.self) { try writer.append(snapshot: state) }
    try writer.close()
    // then the message says where and why, and shows the start of the state, not all of it
    let message = try #require(error?.message)
    #expect(message.hasPrefix(#"cannot journal the state {"urls":["https://cdn2.thecatapi.com/images/0.jpg","#))
    #expect(
      message.hasSuffix(
        "… (\(state.utf8.count) bytes): it is not a JSON object "
          + "(invalid JSON at byte \(state.utf8.count - 8): unterminated string)"))
    #expect(message.utf8.count < 400)
    #expect(error?.help == "a feature's actions and states are JSON objects; this is a bug in the feature")
    #expect(try Journal.read(path: path).records().map(\.seq) == [1])
  }

  @Test func aTravelToALaterSeqIsRefused() throws {
    let scratch = try JournalScratch()
    let writer = try JournalWriter.create(
      at: scratch.file("s.jsonl"), header: JournalFixtures.header)
    try writer.append(action: JournalFixtures.increment, source: .user)
    #expect(throws: HostError.self) { try writer.append(travel: .goto, to: 2, state: "{}") }
    #expect(throws: HostError.self) { try writer.append(travel: .undo, to: nil, state: "{}") }
    #expect(throws: HostError.self) { try writer.append(travel: .load, to: 0, state: "{}") }
    #expect(try writer.append(travel: .goto, to: 1, state: "{}") == 2)
  }

  @Test func theSnapshotPolicyFallsDueEveryNActions() throws {
    // given
    let scratch = try JournalScratch()
    let writer = try JournalWriter.create(
      at: scratch.file("s.jsonl"), header: JournalFixtures.header,
      policy: SnapshotPolicy(everyActions: 3))
    // when / then
    var due: [Bool] = []
    for _ in 0..<7 {
      try writer.append(action: JournalFixtures.increment, source: .user)
      due.append(writer.snapshotDue)
      if writer.snapshotDue { try writer.append(snapshot: "{}") }
    }
    #expect(due == [false, false, true, false, false, true, false])
    #expect(SnapshotPolicy(everyActions: 0).isDue(actionsSinceState: 1_000_000) == false)
  }

  @Test func createNeverReplacesAnExistingJournal() throws {
    // given
    let scratch = try JournalScratch()
    try scratch.write("s.jsonl", "precious\n")
    // when
    let error = #expect(throws: HostError.self) {
      try JournalWriter.create(at: scratch.file("s.jsonl"), header: JournalFixtures.header)
    }
    // then
    #expect(error?.message.contains("already exists") == true)
    #expect(try scratch.text("s.jsonl") == "precious\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["s.jsonl"])
  }

  @Test func reopeningCutsATornLastLineAndAppendsOnAFreshLine() throws {
    // given: a crash left half a line
    let scratch = try JournalScratch()
    let (path, writer) = try scratch.counterJournal(increments: 1)
    try writer.close()
    let intact = try scratch.text("s.jsonl")
    try scratch.write("s.jsonl", intact + #"{"action":{"type":"incr"#)
    // when
    let (reopened, journal) = try JournalWriter.openForAppend(at: path, feature: "counter")
    // then
    #expect(
      journal.tornTail
        == TornTail(
          path: path, line: 3, offset: intact.utf8.count,
          byteCount: #"{"action":{"type":"incr"#.utf8.count))
    #expect(journal.tornTail?.description.contains("line 3") == true)
    #expect(try scratch.text("s.jsonl") == intact)
    // when
    #expect(try reopened.append(action: JournalFixtures.decrement, source: .user) == 2)
    try reopened.close()
    // then
    let again = try Journal.read(path: path, feature: "counter")
    #expect(again.tornTail == nil)
    #expect(try again.records().map(\.seq) == [1, 2])
  }

  @Test func reopeningEndsAWholeLastRecordThatLacksItsNewline() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    try scratch.write(
      "s.jsonl",
      JournalFixtures.headerLine + "\n"
        + #"{"action":{"type":"increment"},"seq":1,"source":"user"}"#)
    // when
    let (writer, journal) = try JournalWriter.openForAppend(at: path, feature: "counter")
    try writer.append(action: JournalFixtures.increment, source: .user)
    try writer.close()
    // then
    #expect(journal.tornTail == nil)
    #expect(try Journal.read(path: path).records().map(\.seq) == [1, 2])
  }

  @Test func aJournalInUseCannotBeOpenedTwice() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let first = try JournalWriter.create(at: path, header: JournalFixtures.header)
    // when
    let error = #expect(throws: HostError.self) {
      try JournalWriter.openForAppend(at: path, feature: "counter")
    }
    // then
    #expect(error?.message.contains("in use by another host process") == true)
    try first.close()
    _ = try JournalWriter.openForAppend(at: path, feature: "counter")
  }

  @Test func aDamagedJournalIsNotTouchedWhenOpenedForAppend() throws {
    // given
    let scratch = try JournalScratch()
    let damaged =
      JournalFixtures.headerLine + "\nnot a record\n"
      + #"{"action":{"type":"increment"},"seq":1,"source":"user"}"# + "\n{\"act"
    try scratch.write("s.jsonl", damaged)
    // when
    let error = #expect(throws: HostError.self) {
      try JournalWriter.openForAppend(at: scratch.file("s.jsonl"), feature: "counter")
    }
    // then
    #expect(error?.message.contains("line 2") == true)
    #expect(try scratch.text("s.jsonl") == damaged)
  }

  @Test func aCrashAtAnyByteLeavesAJournalThatReopensAndGoesOn() throws {
    // given: a journal with every kind of line
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header)
    try writer.append(action: #"{"type":"created"}"#, source: .lifecycle)
    try writer.append(action: JournalFixtures.increment, source: .user)
    try writer.append(snapshot: #"{"clicks":1,"count":1}"#)
    try writer.append(travel: .undo, to: 1, state: #"{"clicks":0,"count":0}"#)
    try writer.append(travel: .load, to: nil, state: #"{"clicks":4,"count":2}"#)
    try writer.append(action: "{\"type\":\n\"decrement\"}", source: .feedback)
    try writer.close()
    let whole = Array(try scratch.text("s.jsonl").utf8)
    let headerEnd = (whole.firstIndex(of: UInt8(ascii: "\n")) ?? 0) + 1
    // when: the file is cut at every byte after the header, as a crash mid-write may leave it
    for cut in headerEnd...whole.count {
      let prefix = Array(whole[..<cut])
      try scratch.write("s.jsonl", prefix)
      let (reopened, journal) = try JournalWriter.openForAppend(at: path, feature: "counter")
      let next = try reopened.append(action: JournalFixtures.increment, source: .user)
      try reopened.close()
      // then: whole lines are kept, a partial one is reported as torn, and appends go on
      let wholeLines = prefix[headerEnd...].filter { $0 == UInt8(ascii: "\n") }.count
      let endsInLine = prefix.last == UInt8(ascii: "\n")
      let partialIsWholeRecord = !endsInLine && whole[cut] == UInt8(ascii: "\n")
      let kept = wholeLines + (partialIsWholeRecord ? 1 : 0)
      #expect((journal.tornTail != nil) == !(endsInLine || partialIsWholeRecord), "cut at \(cut)")
      let again = try Journal.read(path: path, feature: "counter")
      #expect(again.tornTail == nil)
      #expect(try again.records().count == kept + 1, "cut at \(cut)")
      #expect(again.lastSeq == next)
      _ = try again.restorePoint()
    }
  }

  @Test func afterCloseEveryCallThrows() throws {
    let scratch = try JournalScratch()
    let writer = try JournalWriter.create(
      at: scratch.file("s.jsonl"), header: JournalFixtures.header)
    try writer.close()
    #expect(throws: HostError.self) {
      try writer.append(action: JournalFixtures.increment, source: .user)
    }
  }
}
