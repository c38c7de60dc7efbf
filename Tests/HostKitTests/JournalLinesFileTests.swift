import FeatureJSON
import Foundation
import Testing

@testable import HostKit

/// The one JSON Lines file type under the feature and navigation journals: each test opens the
/// file through its own descriptor, as a second host would (a `flock` belongs to the open file).
@Suite("JSON Lines file")
struct JournalLinesFileTests {
  static let header = Array("{\"journal\":\"test\"}\n".utf8)

  /// Reads `bytes` as a header then one JSON object per line, with the shared torn-tail rule.
  static func check(_ bytes: [UInt8], path: String) throws(HostError) -> ([String], JSONLinesTail) {
    var lines: [String] = []
    let tail = try bytes.withUnsafeBufferPointer { buffer throws(HostError) in
      let headerEnd = buffer.firstIndex(of: JournalByte.newline) ?? buffer.count
      return try JSONLinesFile.scanLines(
        buffer, from: min(headerEnd + 1, buffer.count), line: 2, path: path,
        recognize: { line, _ throws(LineProblem) in
          guard (try? JSONValue.parse(bytes: UnsafeRawBufferPointer(line))) != nil else {
            throw LineProblem(message: "is not JSON")
          }
          return String(decoding: line, as: UTF8.self)
        },
        accept: { line, _, _ in lines.append(line) },
        damaged: { number, problem in HostError("line \(number) \(problem.message)") })
    }
    return (lines, tail)
  }

  static func open(_ path: String, limits: GroupCommitLimits = GroupCommitLimits()) throws(HostError) -> (
    file: JSONLinesFile, contents: [String]
  ) {
    try JSONLinesFile.open(at: path, limits: limits) { bytes throws(HostError) in try check(bytes, path: path) }
  }

  static func append(_ file: JSONLinesFile, _ line: String) throws(HostError) {
    file.pending.append(contentsOf: Array((line + "\n").utf8))
    try file.lineAppended()
  }

  @Test func createIsRefusedWhenTheFileExistsAndLeavesItAsItWas() throws {
    // given
    let scratch = try JournalScratch()
    try scratch.write("f.jsonl", "precious\n")
    // when
    let error = #expect(throws: HostError.self) {
      try JSONLinesFile.create(at: scratch.file("f.jsonl"), header: Self.header, limits: GroupCommitLimits())
    }
    // then
    #expect(error?.failure as? JournalFailure == .alreadyExists(path: scratch.file("f.jsonl")))
    #expect(try scratch.text("f.jsonl") == "precious\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["f.jsonl"])
  }

  @Test func createWhileAnotherHolderHasTheFileSaysItIsInUse() throws {
    // given: a file created and still held
    let scratch = try JournalScratch()
    let path = scratch.file("f.jsonl")
    let first = try JSONLinesFile.create(at: path, header: Self.header, limits: GroupCommitLimits())
    try Self.append(first, #"{"n":1}"#)
    try first.commit()
    // when a second creator comes
    let error = #expect(throws: HostError.self) {
      try JSONLinesFile.create(at: path, header: Self.header, limits: GroupCommitLimits())
    }
    // then it is told the file is in use, and the first holder's line is there
    #expect(error?.failure as? JournalFailure == .inUse(path: path))
    #expect(error?.message == "the journal '\(path)' is in use by another host process")
    #expect(try scratch.text("f.jsonl") == "{\"journal\":\"test\"}\n{\"n\":1}\n")
  }

  @Test func openIsRefusedWhileTheLockIsHeldAndAllowedAfterClose() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("f.jsonl")
    let first = try JSONLinesFile.create(at: path, header: Self.header, limits: GroupCommitLimits())
    // when
    let error = #expect(throws: HostError.self) { try Self.open(path) }
    // then
    #expect(error?.failure as? JournalFailure == .inUse(path: path))
    try first.close()
    #expect(try Self.open(path).contents == [])
  }

  @Test func aTornTailIsReportedAndCutBeforeTheNextAppend() throws {
    // given: a crash left half a line
    let scratch = try JournalScratch()
    let path = scratch.file("f.jsonl")
    let intact = "{\"journal\":\"test\"}\n{\"n\":1}\n"
    try scratch.write("f.jsonl", intact + #"{"n":"#)
    // when
    let (file, lines) = try JSONLinesFile.open(at: path, limits: GroupCommitLimits()) {
      bytes throws(HostError) in
      let (lines, tail) = try Self.check(bytes, path: path)
      // then it is reported
      let torn = TornTail(path: path, line: 3, offset: intact.utf8.count, byteCount: #"{"n":"#.utf8.count)
      #expect(tail.tornTail == torn)
      return (lines, tail)
    }
    // then it is cut, and appends start on a fresh line
    #expect(lines == [#"{"n":1}"#])
    #expect(try scratch.text("f.jsonl") == intact)
    try Self.append(file, #"{"n":2}"#)
    try file.close()
    #expect(try scratch.text("f.jsonl") == intact + "{\"n\":2}\n")
  }

  @Test func aWholeLastLineWithoutItsNewlineIsKeptAndEnded() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("f.jsonl")
    try scratch.write("f.jsonl", "{\"journal\":\"test\"}\n{\"n\":1}")
    // when
    let (file, lines) = try Self.open(path)
    try Self.append(file, #"{"n":2}"#)
    try file.close()
    // then
    #expect(lines == [#"{"n":1}"#])
    #expect(try scratch.text("f.jsonl") == "{\"journal\":\"test\"}\n{\"n\":1}\n{\"n\":2}\n")
  }

  @Test func aBadLineBeforeTheLastIsAnErrorAndNothingIsCut() throws {
    // given
    let scratch = try JournalScratch()
    let damaged = "{\"journal\":\"test\"}\nnot json\n{\"n\":1}\n{\"n"
    try scratch.write("f.jsonl", damaged)
    // when
    let error = #expect(throws: HostError.self) { try Self.open(scratch.file("f.jsonl")) }
    // then
    #expect(error?.message == "line 2 is not JSON")
    #expect(try scratch.text("f.jsonl") == damaged)
  }

  @Test func linesReachTheFileOnlyAtCommitInTheOrderAppended() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("f.jsonl")
    let file = try JSONLinesFile.create(at: path, header: Self.header, limits: GroupCommitLimits())
    // when
    try Self.append(file, #"{"n":1}"#)
    try Self.append(file, #"{"n":2}"#)
    // then nothing is written before the commit
    #expect(try scratch.text("f.jsonl") == "{\"journal\":\"test\"}\n")
    #expect(file.pendingLines == 2)
    // when
    try file.commit()
    // then the group is written whole, in order
    #expect(try scratch.text("f.jsonl") == "{\"journal\":\"test\"}\n{\"n\":1}\n{\"n\":2}\n")
    #expect(file.pendingLines == 0)
    #expect(try file.durableSize == scratch.size("f.jsonl"))
  }

  @Test func theFileCommitsByItselfWhenAGroupIsFull() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("f.jsonl")
    let file = try JSONLinesFile.create(at: path, header: Self.header, limits: GroupCommitLimits(maxLines: 3))
    // when
    for n in 1...4 { try Self.append(file, "{\"n\":\(n)}") }
    // then the first three were committed as a group; the fourth waits
    let (lines, _) = try Self.check(Array(try scratch.text("f.jsonl").utf8), path: path)
    #expect(lines == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
    #expect(file.pendingLines == 1)
  }

  @Test func afterCloseAppendsAreRefusedAndTheLockIsFree() throws {
    // given
    let scratch = try JournalScratch()
    let path = scratch.file("f.jsonl")
    let file = try JSONLinesFile.create(at: path, header: Self.header, limits: GroupCommitLimits())
    try file.close()
    // when / then
    let error = #expect(throws: HostError.self) { try file.checkUsable() }
    #expect(error?.failure as? JournalFailure == .closed(path: path))
    _ = try Self.open(path)
  }
}
