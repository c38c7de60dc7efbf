import Testing

@testable import host

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Chunked line reader")
struct ChunkedLineReaderTests {
  /// The lines `input` reads as, through a pipe, with chunks of `chunk` bytes.
  func lines(of input: String, maximum: Int = 100, chunk: Int = 4) -> [ChunkedLineReader.Line] {
    var descriptors: [Int32] = [0, 0]
    precondition(pipe(&descriptors) == 0)
    let bytes = Array(input.utf8)
    // Small inputs fit in the pipe's buffer: written whole before reading.
    precondition(bytes.withUnsafeBytes { write(descriptors[1], $0.baseAddress, $0.count) } == bytes.count)
    close(descriptors[1])
    defer { close(descriptors[0]) }
    var reader = ChunkedLineReader(descriptor: descriptors[0], maximumLineLength: maximum, chunkSize: chunk)
    var lines: [ChunkedLineReader.Line] = []
    while let line = reader.next() { lines.append(line) }
    return lines
  }

  @Test func linesAcrossChunkBoundariesComeWhole() {
    #expect(
      lines(of: "increment\ndecrement\n\nset 1 2\n") == [
        .text("increment"), .text("decrement"), .text(""), .text("set 1 2"),
      ])
  }

  @Test func aLastLineWithoutNewlineCountsAndCarriageReturnsGo() {
    #expect(lines(of: "a\r\nb") == [.text("a"), .text("b")])
    #expect(lines(of: "") == [])
  }

  @Test func aLineOverTheLimitIsSkippedAndReportedWithItsLength() {
    let long = String(repeating: "x", count: 25)
    #expect(lines(of: "a\n\(long)\nb\n", maximum: 10) == [.text("a"), .tooLong(length: 25), .text("b")])
    #expect(lines(of: "a\n\(long)", maximum: 10) == [.text("a"), .tooLong(length: 25)])
  }

  @Test func aWakeReturnsBeforeALineAndKeepsWhatWasReadOfIt() throws {
    // given input that has part of a long line and no newline yet, and a wake pipe
    var input: [Int32] = [0, 0]
    var wake: [Int32] = [0, 0]
    try #require(pipe(&input) == 0 && pipe(&wake) == 0)
    defer { for fd in input + wake { close(fd) } }
    func send(_ fd: Int32, _ text: String) {
      let bytes = Array(text.utf8)
      #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }
    var reader = ChunkedLineReader(descriptor: input[0], maximumLineLength: 10, chunkSize: 4, wake: wake[0])
    send(input[1], "ok\n" + String(repeating: "x", count: 15))
    #expect(reader.next() == .text("ok"))
    // when the wake is written while the reader waits for the rest of the long line
    send(wake[1], "!")
    #expect(reader.next() == .woken)
    // then the line, once it ends, still counts every byte of it, and the wake was drained
    send(input[1], "xxxxx\nb\n")
    #expect(reader.next() == .tooLong(length: 20))
    #expect(reader.next() == .text("b"))
    close(input[1])
    input[1] = -1
    #expect(reader.next() == nil)
  }

  @Test func multibyteTextSurvivesChunking() {
    #expect(lines(of: "café ☕\nü\n", chunk: 3) == [.text("café ☕"), .text("ü")])
  }
}
