import Foundation
import Synchronization
import Testing

@testable import HostKit

/// Action lines carry `"at"`: milliseconds since the header's `created` (docs/journal.md, Action times).
@Suite("Journal action times")
struct JournalActionTimeTests {
  static let created = 1_764_450_000.0

  /// A clock that answers `times` (seconds after the header's `created`) one after the other.
  static func clock(_ times: [Double]) -> JournalClock {
    let left = Mutex(times)
    return JournalClock {
      let seconds = left.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
      return Int64(((created + seconds) * 1000).rounded())
    }
  }

  static func action(_ seq: Int, at: String? = nil, _ type: String = "increment") -> String {
    let time = at.map { #""at":\#($0),"# } ?? ""
    return #"{"action":{"type":"\#(type)"},\#(time)"seq":\#(seq),"source":"user"}"#
  }

  @Test func eachActionLineCarriesItsTimeAndTimesNeverGoBack() throws {
    // given: a clock that is set back once, between the second and the third action
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let writer = try JournalWriter.create(
      at: path, header: JournalFixtures.header, clock: Self.clock([0.25, 1.0, 0.5, 2.0]))
    // when
    for _ in 0..<4 { try writer.append(action: JournalFixtures.increment, source: .user) }
    try writer.append(snapshot: #"{"clicks":4,"count":4}"#)
    try writer.close()
    // then: the time after the clock went back repeats the one before it
    let lines = try scratch.text("s.jsonl").split(separator: "\n").dropFirst().map(String.init)
    #expect(
      lines == [
        Self.action(1, at: "250"), Self.action(2, at: "1000"), Self.action(3, at: "1000"),
        Self.action(4, at: "2000"), #"{"seq":4,"state":{"clicks":4,"count":4}}"#,
      ])
    let journal = try Journal.read(path: path)
    let records = try journal.records()
    #expect(
      records.compactMap { if case .action(let action) = $0 { action.at } else { nil } } == [250, 1000, 1000, 2000])
    #expect(journal.lastActionAt == 2000)
  }

  @Test func aJournalReopenedInALaterRunCountsFromTheSameCreated() throws {
    // given: a journal written one second after its creation
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    let first = try JournalWriter.create(at: path, header: JournalFixtures.header, clock: Self.clock([1]))
    try first.append(action: JournalFixtures.increment, source: .user)
    try first.close()
    // when: it is reopened a day later, then by a host whose clock is behind the file's last time
    let (later, _) = try JournalWriter.openForAppend(at: path, feature: "counter", clock: Self.clock([86_400]))
    try later.append(action: JournalFixtures.increment, source: .user)
    try later.close()
    let (behind, opened) = try JournalWriter.openForAppend(at: path, feature: "counter", clock: Self.clock([5]))
    try behind.append(action: JournalFixtures.increment, source: .user)
    try behind.close()
    // then
    #expect(opened.lastActionAt == 86_400_000)
    let records = try Journal.read(path: path).records()
    #expect(
      records.compactMap { if case .action(let action) = $0 { action.at } else { nil } } == [
        1000, 86_400_000, 86_400_000,
      ])
  }

  @Test func aJournalWithoutTimesStillReadsRestoresAndGoesOnWithTimes() throws {
    // given: a journal an older host wrote
    let scratch = try JournalScratch()
    let path = scratch.file("s.jsonl")
    try scratch.write(
      "s.jsonl",
      [JournalFixtures.headerLine, Self.action(1), #"{"seq":1,"state":{"clicks":1,"count":1}}"#, Self.action(2)]
        .joined(separator: "\n") + "\n")
    // when
    let (writer, journal) = try JournalWriter.openForAppend(
      at: path, feature: "counter", clock: JournalFixtures.clock)
    try writer.append(action: JournalFixtures.decrement, source: .user)
    try writer.close()
    // then: the old lines have no time, the new one has
    #expect(journal.lastActionAt == nil)
    let point = try journal.restorePoint()
    #expect(point.state == #"{"clicks":1,"count":1}"#)
    #expect(point.actions == [JournalAction(seq: 2, source: .user, json: JournalFixtures.increment)])
    let history = try Journal.read(path: path).history()
    #expect(history.effectiveActions().map(\.at) == [nil, nil, 1500])
    #expect(try scratch.text("s.jsonl").hasSuffix(Self.action(3, at: "1500", "decrement") + "\n"))
  }

  @Test func aTimeInAnotherLayoutIsReadToo() throws {
    let text =
      [
        JournalFixtures.headerLine,
        #"{"seq":1, "at":7, "source":"user", "action":{"type":"increment"}}"#,
        Self.action(2, at: "9007199254740991"),
      ].joined(separator: "\n") + "\n"
    let records = try Journal(bytes: Array(text.utf8), path: "s.jsonl").records()
    #expect(
      records.compactMap { if case .action(let action) = $0 { action.at } else { nil } } == [7, 9_007_199_254_740_991])
  }

  @Test(
    "an action line whose time is not a time is refused, naming the line and the value",
    arguments: [
      TextCase(id: "negative", text: "-5", expected: #"has "at": -5, which is not a time"#),
      TextCase(id: "text", text: #""soon""#, expected: #"has "at": "soon", which is not a time"#),
      TextCase(id: "fraction", text: "1.5", expected: #"has "at": 1.5, which is not a time"#),
      TextCase(id: "null", text: "null", expected: #"has "at": null, which is not a time"#),
      TextCase(
        id: "beyond the largest safe integer", text: "9007199254740992",
        expected: #"has "at": 9007199254740992, which is not a time"#),
      TextCase(id: "huge", text: "1e300", expected: #"has "at": 1e+300, which is not a time"#),
      TextCase(id: "leading zero", text: "05", expected: "is not JSON"),
    ])
  func aMalformedTimeIsRefused(_ bad: TextCase) throws {
    let text =
      [JournalFixtures.headerLine, Self.action(1, at: "3"), Self.action(2, at: bad.text), Self.action(3)]
      .joined(separator: "\n") + "\n"
    let error = #expect(throws: HostError.self) { try Journal(bytes: Array(text.utf8), path: "s.jsonl") }
    #expect(error?.message.hasPrefix("journal 's.jsonl' line 3 ") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains(bad.expected) == true, "\(error?.message ?? "")")
    if bad.id != "leading zero" {
      #expect(error?.message.hasSuffix("correct it or remove the key") == true, "\(error?.message ?? "")")
    }
    #expect(error?.help?.contains("lines 1-2 are intact") == true, "\(error?.help ?? "")")
  }
}

@Suite("A header's created time")
struct UTCTimeTests {
  @Test(arguments: [0, 59, 951_782_400, 1_764_451_200, 1_796_589_461, 4_102_444_799])
  func writtenAsFoundationWritesItAndReadBack(_ seconds: Int) throws {
    let date = Date(timeIntervalSince1970: TimeInterval(seconds))
    #expect(UTCTime.text(seconds) == date.formatted(.iso8601))
    #expect(UTCTime.seconds(UTCTime.text(seconds)) == seconds)
    #expect(try Date(UTCTime.text(seconds), strategy: .iso8601) == date)
  }

  @Test(arguments: [
    "2025-04-31T10:00:00Z", "2025-02-29T10:00:00Z", "2025-13-01T10:00:00Z", "2025-11-29T24:00:00Z",
    "2025-11-29T21:20:00", "2025-11-29T21:20:00.5Z", "2025-11-29 21:20:00Z", "2025-11-29T21:2a:00Z", "",
  ])
  func anythingElseIsNoTimeOfItsShape(_ text: String) {
    #expect(UTCTime.seconds(text) == nil)
  }

  @Test func aHeaderWrittenOnALeapDayReadsBackToItsSecond() {
    // 2024-02-29T23:59:59Z
    let seconds = 1_709_251_199
    #expect(UTCTime.text(seconds) == "2024-02-29T23:59:59Z")
    #expect(UTCTime.seconds("2024-02-29T23:59:59Z") == seconds)
  }
}
