import Testing

@testable import HostKit

/// A page's event stream without a server: what a read hands the connection, in order and whole.
@Suite("devtools event stream")
struct EventStreamTests {
  /// Reads once into a buffer of `size` bytes; the text, or nil at the end.
  static func read(_ stream: EventStream, size: Int = 4096) -> String? {
    var buffer = [CChar](repeating: 0, count: size)
    let count = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, max: size) }
    guard count >= 0 else { return nil }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  @Test func queuedEventsAreReadInOrderInOneRead() {
    let stream = EventStream()
    stream.send("applied", data: #"{"seq":1}"#)
    stream.send("view", data: #"{"text":"x"}"#)
    #expect(Self.read(stream) == "event: applied\ndata: {\"seq\":1}\n\nevent: view\ndata: {\"text\":\"x\"}\n\n")
  }

  @Test func anEventLargerThanTheBufferIsReadInPieces() {
    let stream = EventStream()
    stream.send("applied", data: "0123456789")
    stream.send("step", data: "{}")
    let whole = "event: applied\ndata: 0123456789\n\nevent: step\ndata: {}\n\n"
    var read = ""
    while read.count < whole.count, let piece = Self.read(stream, size: 8) { read += piece }
    #expect(read == whole)
  }

  @Test func aReaderThatFallsBehindIsToldToFetchAgain() {
    let stream = EventStream(limit: 3)
    for seq in 1...4 { stream.send("applied", data: "\(seq)") }
    // The three queued were dropped for a resync; the fourth follows it.
    #expect(Self.read(stream) == "event: resync\ndata: {}\n\nevent: applied\ndata: 4\n\n")
  }

  @Test func aQuietStreamSendsAKeepAliveComment() {
    let stream = EventStream(keepAlive: 0.01)
    #expect(Self.read(stream) == ": ping\n\n")
  }

  @Test func anEndedStreamReadsTheEndAndTakesNoMoreEvents() {
    let stream = EventStream()
    stream.end()
    stream.send("applied", data: "1")
    #expect(stream.hasEnded)
    #expect(Self.read(stream) == nil)
  }

  @Test func aHubWithoutPagesFormatsNothingAndDropsEndedStreams() {
    let hub = DevtoolsHub()
    #expect(!hub.hasReaders)
    let page = hub.subscribe()
    #expect(hub.readerCount == 1)
    page.end()
    #expect(hub.readerCount == 0)
    #expect(!hub.hasReaders)
  }
}
