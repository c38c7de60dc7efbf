import FeatureTesting
import Foundation
import HostKit
import Testing

@Suite("Journal reader")
struct JournalReaderTests {
  static let header = JournalFixtures.headerLine
  static func action(_ seq: Int, _ type: String = "increment", source: String = "user") -> String {
    #"{"action":{"type":"\#(type)"},"seq":\#(seq),"source":"\#(source)"}"#
  }

  struct BadJournal: CustomTestStringConvertible, Sendable {
    let id: String
    let bytes: [UInt8]
    /// The feature the caller expects.
    var feature: String? = "counter"
    /// What the message must contain besides the file's path.
    let says: String
    var testDescription: String { id }

    init(_ id: String, _ text: String, feature: String? = "counter", says: String) {
      self.init(id, Array(text.utf8), feature: feature, says: says)
    }

    init(_ id: String, _ bytes: [UInt8], feature: String? = "counter", says: String) {
      self.id = id
      self.bytes = bytes
      self.feature = feature
      self.says = says
    }
  }

  static let badJournals: [BadJournal] = [
    BadJournal(
      "not-json-binary", [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x00, 0x0A, 0xFF, 0x0A],
      says: "line 1 is not JSON"),
    BadJournal("not-json-text", "hello, world\n", says: "line 1 is not JSON"),
    BadJournal("empty", "", says: "is empty"),
    BadJournal(
      "header-missing", action(1) + "\n", says: #"line 1 has no "journal":"featurehost" header"#),
    BadJournal(
      "header-without-feature", #"{"format":1,"journal":"featurehost"}"# + "\n",
      says: #"line 1: the header has no "feature""#),
    BadJournal(
      "newer-format",
      #"{"created":"x","feature":"counter","featureVersion":"2.0.0","format":2,"host":"0.9.0","journal":"featurehost"}"#
        + "\n" + action(1) + "\n",
      says: "line 1: format 2 is newer than this host reads (1)"),
    BadJournal(
      "other-feature", header + "\n" + action(1) + "\n", feature: "levels",
      says: "belongs to feature 'counter', not 'levels'"),
    BadJournal(
      "corrupt-middle-line",
      header + "\n" + action(1) + "\n" + #"{"action":{"ty@@"# + "\n" + action(2) + "\n",
      says: "line 3 is not JSON"),
    BadJournal(
      "binary-middle-line",
      Array((header + "\n" + action(1) + "\n").utf8) + [0, 0, 0, 0x0A]
        + Array((action(2) + "\n").utf8),
      says: "line 3 is not JSON"),
    BadJournal(
      "seq-backwards", header + "\n" + action(1) + "\n" + action(2) + "\n" + action(1) + "\n",
      says: "line 4 has seq 1, which goes backwards"),
    BadJournal(
      "seq-repeated", header + "\n" + action(1) + "\n" + action(1) + "\n",
      says: "line 3 has seq 1, which goes backwards"),
    BadJournal(
      "seq-gap", header + "\n" + action(1) + "\n" + action(3) + "\n",
      says: "line 3 has seq 3, but 2 comes next: a line is missing"),
    BadJournal(
      "snapshot-of-another-seq", header + "\n" + action(1) + "\n" + #"{"seq":5,"state":{}}"# + "\n",
      says: "line 3 is a snapshot of seq 5, but the records before it reach seq 1"),
    BadJournal(
      "unknown-source", header + "\n" + action(1, source: "robot") + "\n",
      says: #"line 2 is not a journal record: it has no "source""#),
    BadJournal(
      "travel-forward",
      header + "\n" + action(1) + "\n" + #"{"seq":2,"state":{},"to":2,"travel":"goto"}"# + "\n",
      says: "line 3 travels to seq 2, which is not before its own seq 2"),
    BadJournal(
      "neither-action-nor-state", header + "\n" + #"{"seq":1}"# + "\n",
      says: "line 2 is not a journal record"),
    BadJournal(
      "second-header", header + "\n" + header + "\n", says: "line 2 is not a journal record"),
    BadJournal("blank-middle-line", header + "\n\n" + action(1) + "\n", says: "line 2 is not JSON"),
    BadJournal(
      "bad-last-line-with-newline", header + "\n" + action(1) + "\n" + #"{"action":"# + "\n",
      says: "line 3 is not JSON"),
  ]

  @Test("a bad journal is an error naming the file and line, with help", arguments: badJournals)
  func aBadJournalIsAnErrorNamingFileAndLine(_ bad: BadJournal) throws {
    // given
    let path = "/sessions/\(bad.id).jsonl"
    // when
    let error = #expect(throws: HostError.self) {
      try Journal(bytes: bad.bytes, path: path, feature: bad.feature)
    }
    // then
    #expect(error?.message.contains(path) == true)
    #expect(error?.message.contains(bad.says) == true, "\(error?.message ?? "no error")")
    #expect(error?.help?.isEmpty == false)
  }

  @Test func aBadJournalFileIsLeftAsItIs() throws {
    let scratch = try JournalScratch()
    let bytes = Array((Self.header + "\n" + Self.action(1) + "\n" + Self.action(3) + "\n").utf8)
    try scratch.write("s.jsonl", bytes)
    #expect(throws: HostError.self) {
      try Journal.read(path: scratch.file("s.jsonl"), feature: "counter")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.file("s.jsonl"))) == Data(bytes))
  }

  struct TornCase: CustomTestStringConvertible, Sendable {
    let id: String
    let tail: [UInt8]
    var testDescription: String { id }
  }

  static let tornCases: [TornCase] = [
    TornCase(id: "mid-action", tail: Array(#"{"action":{"type":"incre"#.utf8)),
    TornCase(id: "mid-snapshot", tail: Array(#"{"seq":2,"state":{"clicks":2,"#.utf8)),
    TornCase(
      id: "before-closing-brace",
      tail: Array(#"{"action":{"type":"increment"},"seq":3,"source":"user""#.utf8)),
    TornCase(id: "zero-filled-block", tail: [UInt8](repeating: 0, count: 4096)),
    TornCase(
      id: "looks-whole-from-its-ends",
      tail: Array(#"{"action":{"a":{"b":{},"seq":3,"source":"user"}"#.utf8)),
  ]

  @Test("a torn last line is reported and ignored", arguments: tornCases)
  func aTornLastLineIsReportedAndIgnored(_ torn: TornCase) throws {
    // given
    let intact = Self.header + "\n" + Self.action(1) + "\n" + Self.action(2) + "\n"
    // when
    let journal = try Journal(
      bytes: Array(intact.utf8) + torn.tail, path: "s.jsonl", feature: "counter")
    // then
    #expect(
      journal.tornTail
        == TornTail(path: "s.jsonl", line: 4, offset: intact.utf8.count, byteCount: torn.tail.count)
    )
    #expect(journal.lastSeq == 2)
    #expect(try journal.records().map(\.seq) == [1, 2])
    #expect(try journal.restorePoint().actions.map(\.seq) == [1, 2])
  }

  @Test func linesInAnotherLayoutAreReadByParsingThem() throws {
    // given: keys in another order, spaces, an escaped slash: valid JSON, not the writer's layout
    let text =
      [
        #"{ "journal": "featurehost", "format": 1, "feature": "counter", "featureVersion": "1.0.0", "#
          + #""host": "0.1.0", "created": "2025-11-29T21:00:00Z" }"#,
        #"{"source":"user","seq":1,"action":{"type":"incre\u006dent"}}"#,
        #"{ "state": {"count": 1, "clicks": 1}, "seq": 1 }"#,
        #"{"travel":"undo","to":0,"seq":2,"state":{"clicks":0,"count":0}}"#,
        #"{"action": {"type": "decrement"}, "seq": 3, "source": "feedback"}"#,
      ].joined(separator: "\n") + "\n"
    // when
    let journal = try Journal(bytes: Array(text.utf8), path: "s.jsonl", feature: "counter")
    // then
    #expect(
      try journal.records() == [
        .action(JournalAction(seq: 1, source: .user, json: #"{"type":"increment"}"#)),
        .snapshot(seq: 1, state: #"{"clicks":1,"count":1}"#),
        .travel(JournalTravel(seq: 2, kind: .undo, to: 0, state: #"{"clicks":0,"count":0}"#)),
        .action(JournalAction(seq: 3, source: .feedback, json: #"{"type":"decrement"}"#)),
      ])
    #expect(
      try journal.restorePoint()
        == JournalRestorePoint(
          path: "s.jsonl", state: #"{"clicks":0,"count":0}"#, stateSeq: 2,
          actions: [JournalAction(seq: 3, source: .feedback, json: #"{"type":"decrement"}"#)],
          lastSeq: 3))
  }

  @Test func restoreStartsAtTheLastSnapshotAfterMany() throws {
    // given: 2,505 actions with a snapshot every 1,000
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header)
    for count in 1...2505 {
      try writer.append(action: JournalFixtures.increment, source: .user)
      if writer.snapshotDue {
        try writer.append(snapshot: #"{"clicks":\#(count),"count":\#(count)}"#)
      }
    }
    try writer.close()
    // when
    let journal = try Journal.read(path: path, feature: "counter")
    let point = try journal.restorePoint()
    // then
    #expect(journal.actionsSinceState == 505)
    #expect(point.state == #"{"clicks":2000,"count":2000}"#)
    #expect(point.stateSeq == 2000)
    #expect(point.actions.map(\.seq) == Array(2001...2505))
    #expect(point.lastSeq == 2505)
    #expect(try journal.records().count == 2507)
  }

  @Test func restoreWithoutSnapshotsReplaysEveryAction() throws {
    let text =
      Self.header + "\n" + Self.action(1, "created", source: "lifecycle") + "\n" + Self.action(2)
      + "\n"
    let point = try Journal(bytes: Array(text.utf8), path: "s.jsonl").restorePoint()
    #expect(point.state == nil)
    #expect(point.stateSeq == 0)
    #expect(point.actions.map(\.json) == [#"{"type":"created"}"#, JournalFixtures.increment])
  }

  @Test func restoreStartsAtTheStateALaterTravelCarries() throws {
    let text =
      [
        Self.header, Self.action(1), #"{"seq":1,"state":{"clicks":1,"count":1}}"#, Self.action(2),
        #"{"seq":3,"state":{"clicks":1,"count":1},"to":1,"travel":"undo"}"#,
        Self.action(4, "decrement"),
      ].joined(separator: "\n") + "\n"
    let point = try Journal(bytes: Array(text.utf8), path: "s.jsonl").restorePoint()
    #expect(point.state == #"{"clicks":1,"count":1}"#)
    #expect(point.stateSeq == 3)
    #expect(point.actions.map(\.seq) == [4])
  }

  @Test func anActionAfterTheLastSnapshotThatIsNotJSONIsNamedOnRestore() throws {
    // given: the cheap check passes it (right layout), the restore parses it
    let text =
      [
        Self.header, Self.action(1), #"{"seq":1,"state":{}}"#,
        #"{"action":{"type":"incr\u12"},"seq":2,"source":"user"}"#,
      ].joined(separator: "\n") + "\n"
    let journal = try Journal(bytes: Array(text.utf8), path: "s.jsonl")
    // when
    let error = #expect(throws: HostError.self) { try journal.restorePoint() }
    // then
    #expect(
      error?.message.contains("journal 's.jsonl' line 4 has an action that is not JSON") == true)
  }

  @Test func aRestorePointReplaysThroughTheRealCounterPlugin() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let plugin = try PluginLoader.load(PluginPaths.library("Counter"))
    let writer = try JournalWriter.create(
      at: path, header: JournalHeader(plugin: plugin), policy: SnapshotPolicy(everyActions: 10))
    let live = try InstanceFactory.inProcess.makeInstance(of: plugin, config: "{}", target: SilentTarget())
    for index in 0..<37 {
      let action = index % 3 == 2 ? JournalFixtures.decrement : JournalFixtures.increment
      _ = try live.reduce(action)
      try writer.append(action: action, source: .user)
      if writer.snapshotDue { try writer.append(snapshot: try live.snapshot()) }
    }
    try writer.close()
    // when
    let journal = try Journal.read(path: path, feature: plugin.id)
    let restored = try InstanceFactory.inProcess.makeInstance(of: plugin, config: "{}", target: SilentTarget())
    let point = try journal.restorePoint()
    try point.apply(to: restored)
    // then
    #expect(point.actions.count == 7)
    #expect(try restored.snapshot() == live.snapshot())
    #expect(try restored.snapshot() == #"{"clicks":37,"count":13}"#)
  }

  @Test func aStateTheFeatureRefusesIsNamedWithItsSeq() throws {
    let plugin = try PluginLoader.load(PluginPaths.library("Counter"))
    let point = JournalRestorePoint(
      path: "s.jsonl", state: #"{"clicks":1,"count":5}"#, stateSeq: 7, actions: [], lastSeq: 7)
    let instance = try InstanceFactory.inProcess.makeInstance(of: plugin, config: "{}", target: SilentTarget())
    let error = #expect(throws: HostError.self) { try point.apply(to: instance) }
    #expect(
      error?.message.contains("journal 's.jsonl': feature 'counter' refused the state after seq 7")
        == true)
  }
}
