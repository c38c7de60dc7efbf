import FeatureTesting
import Foundation
import Testing

@testable import HostKit

/// Journals are checked as they are read: a valid header followed by a huge body that is not
/// records is refused at its first bad line, having read about one chunk of it.
@Suite("Journals read streaming")
struct JournalStreamingTests {
  static let header = JournalFixtures.headerLine
  static let navigationHeader =
    #"{"created":"x","flow":"main","format":1,"host":"0.1.0","journal":"featurehost-navigation"}"#
  static let action = #"{"action":{"type":"increment"},"seq":1,"source":"user"}"#
  /// The size of the test's big files: 64 MiB, well over one chunk.
  static let bigSize = 64 << 20

  let folder: String
  init() throws { folder = try FixturePlugin.temporaryFolder() }

  /// Writes `head`, then fills the file to `bigSize` with `fill` repeated (nil: a hole of zero
  /// bytes, which costs no disk), then `end`.
  func bigFile(_ name: String, head: String, fill: String?, end: String = "") throws -> String {
    let path = "\(folder)/\(name)"
    let handle = try #require(FileHandle(forWritingAtPath: createEmpty(path)))
    defer { try? handle.close() }
    try handle.write(contentsOf: Data(head.utf8))
    let body = Self.bigSize - head.utf8.count - end.utf8.count
    if let fill {
      let block = Data(String(repeating: fill, count: (1 << 20) / fill.utf8.count).utf8)
      var left = body
      while left > 0 {
        try handle.write(contentsOf: block.prefix(left))
        left -= min(left, block.count)
      }
    } else {
      try handle.seek(toOffset: UInt64(head.utf8.count + body))
    }
    try handle.write(contentsOf: Data(end.utf8))
    try handle.truncate(atOffset: UInt64(Self.bigSize))
    return path
  }

  func createEmpty(_ path: String) -> String {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    return path
  }

  /// Reads `path` through `JournalFile.readAll` with `check` fed as `Journal.read` feeds it;
  /// returns the error and how many bytes had been read when it came.
  func readCounting(
    _ path: String, _ check: @escaping (UnsafeBufferPointer<UInt8>, Bool) throws(HostError) -> Void
  ) -> (
    error: HostError?, bytesRead: Int
  ) {
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var bytesRead = 0
    do throws(HostError) {
      _ = try JournalFile.readAll(
        fd, path: path,
        progress: { buffer, atEnd throws(HostError) in
          bytesRead = buffer.count
          try check(buffer, atEnd)
        })
      return (nil, bytesRead)
    } catch {
      return (error, bytesRead)
    }
  }

  struct BigBody: CustomTestStringConvertible, Sendable {
    let id: String
    let fill: String?
    let end: String
    /// What the error says of line 2.
    let says: String
    var testDescription: String { id }
  }

  static let bigBodies: [BigBody] = [
    // one line of zero bytes without an end: not a torn write, which leaves the start of a record
    BigBody(id: "one-line-of-zeros", fill: nil, end: "", says: "line 2 is not JSON (invalid JSON at byte 0"),
    BigBody(id: "one-line-of-text", fill: "x", end: "\n", says: "line 2 is not JSON (invalid JSON at byte 0"),
    BigBody(id: "millions-of-bad-lines", fill: "x\n", end: "", says: "line 2 is not JSON"),
  ]

  @Test("a valid header then a huge body that is not records is refused at line 2", arguments: bigBodies)
  func aHugeBodyIsRefusedAtItsFirstLine(_ body: BigBody) throws {
    let path = try bigFile("\(body.id).jsonl", head: Self.header + "\n", fill: body.fill, end: body.end)
    // through the reader
    let error = #expect(throws: HostError.self) { try Journal.read(path: path, feature: "counter") }
    #expect(error?.message.contains("journal '\(path)' \(body.says)") == true, "\(error?.message ?? "no error")")
    // and having read one chunk of it
    var checker = Journal.Checker(path: path, feature: "counter")
    let (refusal, bytesRead) = readCounting(path) { buffer, atEnd throws(HostError) in
      try checker.feed(buffer, atEnd: atEnd)
    }
    #expect(refusal?.message == error?.message)
    #expect(bytesRead <= 2 * JournalFile.chunkBytes, "read \(bytesRead) bytes before refusing")
  }

  @Test func aHugeLineAfterGoodRecordsIsRefusedNamingItsLine() throws {
    let head = Self.header + "\n" + Self.action + "\n" + #"{"action":{"type":"increment"},"seq":2,"#
    let path = try bigFile("late.jsonl", head: head, fill: "r", end: "\n")
    let error = #expect(throws: HostError.self) { try Journal.read(path: path, feature: "counter") }
    #expect(error?.message.contains("line 3 is not JSON (invalid JSON at byte 39") == true, "\(error?.message ?? "")")
  }

  @Test func aHugeNavigationBodyIsRefusedAtLineTwo() throws {
    let path = try bigFile("navigation.jsonl", head: Self.navigationHeader + "\n", fill: nil)
    let error = #expect(throws: HostError.self) { try NavigationJournal.read(at: path) }
    #expect(error?.message == "'\(path)' line 2: not a navigation record", "\(error?.message ?? "")")
  }

  @Test func aHugeRecordThatIsJSONIsReadWhole() throws {
    // a state of 3 MiB: longer than a chunk, checked as it comes and taken
    let big = String(repeating: "a", count: 3 << 20)
    let text =
      Self.header + "\n" + Self.action + "\n" + #"{"seq":1,"state":{"clicks":1,"count":1,"note":"\#(big)"}}"# + "\n"
    let path = "\(folder)/big-state.jsonl"
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    let journal = try Journal.read(path: path, feature: "counter")
    #expect(journal.lastSeq == 1)
    #expect(try journal.restorePoint().state?.utf8.count == big.utf8.count + 32)
    // and the same record torn by a crash half-way is a torn tail, not damage
    let torn = String(text.utf8.prefix(text.utf8.count - (1 << 20)))!
    try torn.write(toFile: path, atomically: false, encoding: .utf8)
    let cut = try Journal.read(path: path, feature: "counter")
    #expect(cut.tornTail?.line == 3)
  }

  @Test func replayRefusesAHugeBodyNamingTheLine() async throws {
    let path = try bigFile("replay.jsonl", head: Self.header + "\n", fill: nil)
    let result = try await HostProcess.run(["replay", path], environment: ["XDG_STATE_HOME": folder])
    #expect(result.status == 1)
    #expect(result.stderr.contains("'\(path)' line 2 is not JSON"), "\(result.stderr)")
  }

  // MARK: - The check of a long line

  /// Checks `text` split at `split`; returns the first wrong byte's offset.
  func firstWrong(_ text: String, split: Int) -> Int? {
    var check = JSONPrefixCheck()
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { buffer in
      let cut = min(split, buffer.count)
      if let wrong = check.check(UnsafeBufferPointer(rebasing: buffer[..<cut])) { return wrong }
      return check.check(UnsafeBufferPointer(rebasing: buffer[cut...]))
    }
  }

  @Test func theLongLineCheckTakesEveryJSONObjectAtEverySplit() {
    let texts = [
      #"{"a":[1,-2.5e+3,0,true,false,null,{"b":"\"\\\/\b\f\n\r\t\u00e9"}],"c":{}}"#,
      #" { "x" : [ ] , "y" : [ [ ] , { } ] , "z" : -0.0E-1 } "#,
      #"{"seq":1,"state":{"count":1}}"#,
    ]
    for text in texts {
      for split in 0...text.utf8.count {
        #expect(firstWrong(text, split: split) == nil, "\(text) split at \(split)")
      }
    }
  }

  @Test func theLongLineCheckNamesTheFirstWrongByte() {
    let cases: [(String, Int)] = [
      ("x", 0), ("[1]", 0), (#"{"a":01}"#, 6), (#"{"a":1.}"#, 7), (#"{"a":tru "#, 8), (#"{"a" 1}"#, 5),
      (#"{"a":1,}"#, 7), (#"{"a":[1}"#, 7), ("{\"a\":\"\u{1}\"}", 6), (#"{"a":"\x"}"#, 7), (#"{"a":"\u12G4"}"#, 10),
      (#"{"a":1} {"#, 8), ("{\"a\":\"\0", 6), (#"{1:2}"#, 1), (#"{"a":-}"#, 6), (#"{"a":1e}"#, 7),
    ]
    for (text, wrong) in cases {
      for split in [0, wrong, text.utf8.count] {
        #expect(firstWrong(text, split: split) == wrong, "\(text) split at \(split)")
      }
    }
    let deep = String(repeating: "[", count: JSONPrefixCheck.maxDepth)
    #expect(firstWrong("{\"a\":" + deep, split: 3) == 5 + JSONPrefixCheck.maxDepth - 1)
  }
}
