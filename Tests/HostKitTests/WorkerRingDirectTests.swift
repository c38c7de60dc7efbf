import CWorkerRing
import Foundation
import Testing
import WorkerKit

#if canImport(Glibc)
  import Glibc
#endif

/// A call made one at a time writes its request straight into the ring and reads a `done` answer
/// where it lies; the worker serves a lone action where it lies in the ring. Each must read and
/// write exactly the frames the general way does, at any place in the ring, and step aside (not
/// read, not write) for anything else.
@Suite("The channel's direct calls")
struct WorkerRingDirectTests {
  typealias Ends = WorkerRingTests.Ends

  /// Everything waiting for the worker, read the general way.
  static func drain(_ ends: Ends) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: Int(ends.capacity))
    let read = buffer.withUnsafeMutableBytes { fh_channel_read(&ends.worker, $0.baseAddress, $0.count) }
    return read > 0 ? Array(buffer[0..<read]) : []
  }

  /// Moves both ends' positions on the requests ring to `offset` bytes before the ring's end.
  static func move(_ ends: Ends, toBeforeTheEnd offset: Int) {
    let capacity = Int(ends.capacity)
    let at = Int(ends.host.out_tail) % capacity
    let count = ((capacity - offset - at) % capacity + capacity) % capacity
    let filler = [UInt8](repeating: 0xEE, count: count)
    #expect(WorkerRingTests.pass(filler, through: ends) == filler)
    #expect(Int(ends.worker.in_head) % capacity == (capacity - offset) % capacity)
  }

  static func request(_ ends: Ends, _ kind: WorkerFrame.Request, _ text: String?) -> Int {
    guard var text else { return fh_channel_write_request(&ends.host, kind.rawValue, nil, 0) }
    return text.withUTF8 { fh_channel_write_request(&ends.host, kind.rawValue, $0.baseAddress, $0.count) }
  }

  @Test func aRequestWrittenDirectlyIsTheFrameTheWriterBuildsAtEveryPlaceInTheRing() throws {
    let ends = try Ends(capacity: 1024)
    let calls: [(WorkerFrame.Request, String?)] = [
      (.dispatch, #"{"type":"increment"}"#), (.reduce, #"{"type":"set","left":-3,"right":"é"}"#), (.snapshot, nil),
      (.render, nil), (.dispatch, String(repeating: "x", count: 200)),
    ]
    // at every offset of the ring's end, so that the frame's head, text and NUL each wrap
    for offset in 0..<80 {
      for (kind, text) in calls {
        Self.move(ends, toBeforeTheEnd: offset)
        var writer = FrameWriter()
        writer.frame(kind, text)
        #expect(Self.request(ends, kind, text) == 1, "\(kind) at \(offset)")
        #expect(Self.drain(ends) == writer.bytes, "\(kind) at \(offset) from the end")
      }
    }
  }

  @Test func aRequestThatDoesNotFitNowOrIsLargeIsLeftToTheGeneralWay() throws {
    let ends = try Ends(capacity: 1024)
    // given a ring with 20 bytes of room
    let filler = [UInt8](repeating: 1, count: 1004)
    #expect(fh_channel_write(&ends.host, filler, filler.count, 0) == 1004)
    // a 30-byte frame is not written, nor any part of it
    #expect(Self.request(ends, .dispatch, #"{"type":"increment"}"#) == 0)
    #expect(fh_channel_readable(&ends.worker) == 1004)
    // and once read, a text over a quarter of the ring is not written either
    #expect(Self.drain(ends).count == 1004)
    #expect(Self.request(ends, .dispatch, String(repeating: "a", count: 257)) == 0)
    #expect(Self.request(ends, .dispatch, String(repeating: "a", count: 256)) == 1)
  }

  /// The request `offset` bytes on, as the worker peeks at it: its bytes (nil: not taken) and
  /// whether another whole one follows.
  static func peek(_ ends: Ends, at offset: Int = 0) -> (bytes: [UInt8]?, more: Bool) {
    var frame: UnsafePointer<UInt8>?
    var more: Int32 = -1
    let size = fh_channel_peek_request(&ends.worker, UInt32(offset), &frame, &more)
    guard size > 0, let frame else { return (nil, more != 0) }
    return (Array(UnsafeBufferPointer(start: frame, count: size)), more != 0)
  }

  @Test func theWorkerTakesWholeRequestsInOnePieceWhereTheyLieAndSaysWhetherAnotherFollows() throws {
    let ends = try Ends(capacity: 1024)
    // given nothing: nothing to take
    #expect(Self.peek(ends).bytes == nil)
    // a lone action: its whole frame, in place, nothing after it, until consumed
    let action = #"{"type":"increment"}"#
    var writer = FrameWriter()
    writer.frame(.dispatch, action)
    let frame = writer.bytes
    #expect(Self.request(ends, .dispatch, action) == 1)
    #expect(Self.peek(ends) == (frame, false))
    #expect(fh_channel_readable(&ends.worker) == frame.count)
    fh_channel_consume(&ends.worker, UInt32(frame.count))
    #expect(fh_channel_readable(&ends.worker) == 0)
    #expect(fh_channel_writable(&ends.host) == 1024)
    // two waiting: the first says the second follows; the second, at its offset, that none does
    #expect(Self.request(ends, .dispatch, action) == 1)
    #expect(Self.request(ends, .snapshot, nil) == 1)
    #expect(Self.peek(ends) == (frame, true))
    #expect(Self.peek(ends, at: frame.count) == ([1, 0, 0, 0, WorkerFrame.Request.snapshot.rawValue], false))
    #expect(Self.peek(ends, at: frame.count + 5).bytes == nil)
    _ = Self.drain(ends)
    // a whole frame then half of one: taken, nothing whole after it; the half is not taken
    #expect(Self.request(ends, .dispatch, action) == 1)
    #expect(fh_channel_write(&ends.host, frame, 7, 0) == 7)
    #expect(Self.peek(ends) == (frame, false))
    #expect(Self.peek(ends, at: frame.count).bytes == nil)
    _ = Self.drain(ends)
    // a frame across the ring's end: not taken in place; one before it says it follows
    for offset in 1..<frame.count {
      Self.move(ends, toBeforeTheEnd: offset)
      #expect(Self.request(ends, .dispatch, action) == 1)
      #expect(Self.peek(ends).bytes == nil, "\(offset) bytes before the end")
      #expect(Self.drain(ends) == frame)
      Self.move(ends, toBeforeTheEnd: offset + frame.count)
      #expect(Self.request(ends, .dispatch, action) == 1)
      #expect(Self.request(ends, .dispatch, action) == 1)
      #expect(Self.peek(ends) == (frame, true), "followed by one \(offset) bytes before the end")
      #expect(Self.drain(ends) == frame + frame)
    }
  }

  @Test func aDoneAnswerIsTakenWhereItLiesAtEveryPlaceInTheRingAndNothingElseIs() throws {
    let ends = try Ends(capacity: 1024)
    for offset in 0..<8 {
      for changed in [0, 1] {
        // worker to host: move both positions to `offset` bytes before the end
        let at = Int(ends.host.in_head) % 1024
        let filler = [UInt8](repeating: 0xEE, count: ((1024 - offset - at) % 1024 + 1024) % 1024)
        #expect(fh_channel_write(&ends.worker, filler, filler.count, 0) == filler.count)
        var buffer = [UInt8](repeating: 0, count: 1024)
        #expect(fh_channel_read(&ends.host, &buffer, buffer.count) == max(filler.count, 0))
        #expect(Int(ends.host.in_head) % 1024 == (1024 - offset) % 1024)
        #expect(fh_channel_write_done(&ends.worker, Int32(changed), 1) == 1)
        #expect(fh_channel_take_done(&ends.host) == changed, "at \(offset) from the end")
        #expect(fh_channel_readable(&ends.host) == 0)
      }
    }
    // the frame it takes is the one the general way reads
    #expect(fh_channel_write_done(&ends.worker, 1, 1) == 1)
    var buffer = [UInt8](repeating: 0, count: 16)
    #expect(fh_channel_read(&ends.host, &buffer, 16) == 6)
    #expect(Array(buffer[0..<6]) == [2, 0, 0, 0, WorkerFrame.Message.done.rawValue, 1])
    // any other frame first, or half a frame, is left where it is
    var reply = FrameWriter()
    reply.frame(WorkerFrame.Message.reply.rawValue, "no")
    #expect(fh_channel_write(&ends.worker, reply.bytes, reply.bytes.count, 0) == reply.bytes.count)
    #expect(fh_channel_take_done(&ends.host) == -1)
    #expect(fh_channel_readable(&ends.host) == reply.bytes.count)
    #expect(fh_channel_read(&ends.host, &buffer, 16) == reply.bytes.count)
    #expect(fh_channel_write(&ends.worker, [2, 0, 0], 3, 0) == 3)
    #expect(fh_channel_take_done(&ends.host) == -1)
  }

  @Test func aHeldDoneIsNotTakenUntilShownAndAScribbledPositionStopsTheDirectWrite() throws {
    let ends = try Ends(capacity: 1024)
    // held: written, not shown
    #expect(fh_channel_write_done(&ends.worker, 1, 0) == 1)
    #expect(fh_channel_take_done(&ends.host) == -1)
    #expect(fh_channel_take_committed(&ends.host) == 1)
    #expect(fh_channel_take_done(&ends.host) == 1)
    // given a plugin that moved the shown position over the shared memory: the worker writes
    // nothing directly, and the general way puts the position right
    let header = UnsafeMutableRawPointer(try #require(ends.worker.shared)).bindMemory(to: UInt32.self, capacity: 1024)
    let shown = (0..<1024).filter { header[$0] == 6 }
    try #require(!shown.isEmpty)
    for word in shown { header[word] = 3 }
    #expect(fh_channel_write_done(&ends.worker, 1, 1) == 0)
  }

  @Test func positionsTheWorkerCannotHaveReachedAreNotTakenAsADone() throws {
    let ends = try Ends(capacity: 1024)
    #expect(fh_channel_write_done(&ends.worker, 1, 1) == 1)
    // given requests that used up the room the host last saw (read since, so it must look again)
    let filler = [UInt8](repeating: 1, count: 1000)
    #expect(fh_channel_write(&ends.host, filler, filler.count, 0) == 1000)
    #expect(Self.drain(ends).count == 1000)
    // when the worker fills the shared memory with garbage
    memset(UnsafeMutableRawPointer(try #require(ends.worker.shared)), 0xA5, ends.worker.mapped)
    // the host takes nothing, writes nothing past the room it knew, and the general way finds the
    // channel broken
    #expect(fh_channel_take_done(&ends.host) == -1)
    #expect(Self.request(ends, .dispatch, #"{"type":"increment"}"#) == -1)
    var buffer = [UInt8](repeating: 0, count: 16)
    #expect(fh_channel_read(&ends.host, &buffer, 16) == -1)
  }

  @Test func theDoneKindTheChannelWritesIsTheFramesDoneKind() {
    #expect(WorkerFrame.Message.done.rawValue == UInt8(FH_FRAME_DONE))
  }
}
