import Foundation
import HostKit
import Testing

@testable import host

@Suite("Input lines over the limit")
struct InputLimitTests {
  /// A reader over `text` written to a file, with `limit`.
  func reader(_ text: String, limit: Int) throws -> (BoundedLineReader, Int32) {
    let path = NSTemporaryDirectory() + "featurehost-input-\(UUID().uuidString)"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    defer { unlink(path) }
    let fd = open(path, O_RDONLY)
    try #require(fd >= 0)
    return (BoundedLineReader(fd: fd, limit: limit), fd)
  }

  func lines(_ text: String, limit: Int) throws -> [String] {
    let (reader, fd) = try reader(text, limit: limit)
    defer { close(fd) }
    var lines: [String] = []
    while let line = reader.next() {
      switch line {
      case .success(let text): lines.append(text)
      case .failure(let error): lines.append("! \(error.message)")
      }
    }
    return lines
  }

  @Test func aLineOverTheLimitIsSkippedWithOneErrorAndTheNextLinesGoOn() throws {
    let long = String(repeating: "x", count: 200_000)
    let read = try lines("short\n\(long)\nexactly10!\nelevenbytes\nlast", limit: 10)
    #expect(
      read == [
        "short",
        "! input line 2 is 200000 bytes, more than the 10 a line may have; it was skipped",
        "exactly10!",
        "! input line 4 is 11 bytes, more than the 10 a line may have; it was skipped",
        "last",
      ])
  }

  @Test func anUnterminatedLongLastLineIsAnErrorTooAndEmptyLinesStay() throws {
    let read = try lines("\n\na\n" + String(repeating: "y", count: 70_000), limit: 65_536)
    #expect(
      read == ["", "", "a", "! input line 4 is 70000 bytes, more than the 65536 a line may have; it was skipped"])
  }

  @Test func didYouMeanSkipsWordsLongerThanAnyCandidateCouldMatch() {
    let huge = String(repeating: "increment", count: 200_000)
    #expect(Suggestion.closest(to: huge, in: ["increment", "decrement"]) == nil)
    #expect(Suggestion.closest(to: "incremnt", in: ["increment", "decrement"]) == "increment")
    #expect(Suggestion.closest(to: "incrementxyz", in: ["increment", "decrement"]) == "increment")
    #expect(Suggestion.closest(to: "incrementwxyz", in: ["increment", "decrement"]) == nil)
  }

  @Test func echoedInputIsCut() {
    #expect(Excerpt.of("short") == "short")
    #expect(Excerpt.of(String(repeating: "é", count: 100), limit: 3) == "ééé... (194 more bytes)")
    #expect(Excerpt.of("a\nb") == "a b")
  }
}
