import CWorkerRing
import FeatureJSON
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The rings a worker and the host share (CWorkerRing), both ends in this process: what one end
/// writes the other reads, in order, whatever its size; a sleeping worker wakes for a request and
/// for a close; and the host's end refuses positions the worker cannot have reached.
@Suite("The shared-memory channel")
struct WorkerRingTests {
  /// A host end and a worker end of one channel, mapped twice as the two processes map it.
  final class Ends {
    var host = fh_channel()
    var worker = fh_channel()
    let sockets: [Int32]
    let capacity: UInt32

    init(capacity: UInt32 = 4096) throws {
      var pair: [Int32] = [-1, -1]
      #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
      sockets = pair
      let descriptor = fh_channel_create(capacity, &host)
      try #require(descriptor >= 0)
      try #require(fh_channel_attach(descriptor, pair[1], &worker) == 0)
      close(descriptor)
      self.capacity = host.capacity
    }

    deinit {
      fh_channel_unmap(&host)
      fh_channel_unmap(&worker)
      for socket in sockets { close(socket) }
    }
  }

  /// Moves `message` from the host's end to the worker's, a ring's worth at a time.
  static func pass(_ message: [UInt8], through ends: Ends) -> [UInt8] {
    var received: [UInt8] = []
    var sent = 0
    var buffer = [UInt8](repeating: 0, count: 1000)
    while received.count < message.count {
      let written = message.withUnsafeBytes {
        fh_channel_write(&ends.host, $0.baseAddress! + sent, message.count - sent, 0)
      }
      if written < 0 { return received }
      sent += written
      let read = buffer.withUnsafeMutableBytes { fh_channel_read(&ends.worker, $0.baseAddress, $0.count) }
      if read < 0 { return received }
      received += buffer[0..<read]
    }
    return received
  }

  @Test func bytesComeOutInOrderAcrossTheRingsEndAndLargerThanTheRing() throws {
    // given a channel of 4 KiB rings
    let ends = try Ends()
    #expect(ends.capacity == 4096)
    // when messages of odd sizes go through it, the last 25 times the ring's size
    for size in [1, 999, 4095, 4096, 4097, 102_400] {
      let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
      // then each comes out whole and in order
      #expect(Self.pass(message, through: ends) == message, "\(size) bytes")
    }
    // and nothing is left over
    #expect(fh_channel_readable(&ends.worker) == 0)
    #expect(fh_channel_writable(&ends.host) == 4096)
  }

  @Test func aSleepingWorkerWakesForARequestAndForAClose() throws {
    let ends = try Ends()
    let woke = DispatchSemaphore(value: 0)
    // What the worker saw: (closed, bytes read, the byte), then whether the second wait said closed.
    let seen = Locked<[Int]>([])
    // given a worker that waits without spinning, so it sleeps on its futex
    nonisolated(unsafe) let worker = ends
    let waiter = Thread {
      let closed = fh_channel_worker_wait_readable(&worker.worker, 0)
      var byte: UInt8 = 0
      let read = fh_channel_read(&worker.worker, &byte, 1)
      seen.withLock { $0 += [Int(closed), read, Int(byte)] }
      woke.signal()
      // and then waits again until the host closes the channel
      let closedNow = fh_channel_worker_wait_readable(&worker.worker, 0)
      seen.withLock { $0.append(Int(closedNow)) }
      woke.signal()
    }
    waiter.start()
    // when the host writes a request, whenever the worker went to sleep
    var byte: UInt8 = 42
    #expect(fh_channel_write(&ends.host, &byte, 1, 0) == 1)
    // then the worker wakes and reads it
    #expect(woke.wait(timeout: .now() + 10) == .success)
    #expect(seen.withLock { $0 } == [0, 1, 42])
    // and a close wakes it again, saying closed
    fh_channel_close(&ends.host)
    #expect(woke.wait(timeout: .now() + 10) == .success)
    #expect(seen.withLock { $0 } == [0, 1, 42, 1])
  }

  /// One wait of the worker's end for a request, written `late` after the worker went to sleep on
  /// its futex; the spin budget it keeps for its next wait.
  private static func budgetAfterASleep(_ ends: Ends, spin: Int, late: Duration = .zero) throws -> Int {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) let worker = ends
    let waiter = Thread {
      _ = fh_channel_worker_wait_readable(&worker.worker, spin)
      done.signal()
    }
    waiter.start()
    let deadline = ContinuousClock.now + .seconds(30)
    while fh_channel_worker_sleeps(&ends.host) == 0 {
      try #require(ContinuousClock.now < deadline, "the worker never went to sleep")
      sched_yield()
    }
    // How late the request is, is the scenario: the worker sleeps at least that long.
    let asleep = ContinuousClock.now
    while ContinuousClock.now - asleep < late { sched_yield() }
    var byte: UInt8 = 1
    #expect(fh_channel_write(&ends.host, &byte, 1, 0) == 1)
    try #require(done.wait(timeout: .now() + 30) == .success)
    #expect(fh_channel_read(&ends.worker, &byte, 1) == 1)
    return ends.worker.spin_budget
  }

  @Test func aWorkerThatWaitedLongerThanItsSpinSpinsLessNextTimeDownToAMicrosecond() throws {
    let ends = try Ends()
    // given a worker that may spin 20 µs, each request coming a millisecond after it fell asleep
    var budgets: [Int] = []
    for _ in 0..<6 { budgets.append(try Self.budgetAfterASleep(ends, spin: 20_000, late: .milliseconds(1))) }
    // then each wait halves its spin, down to 1 µs
    #expect(budgets == [10_000, 5_000, 2_500, 1_250, 1_000, 1_000])
  }

  @Test func aWorkerWokenSoonAfterItSleptSpinsLongerNextTimeUpToItsLimit() throws {
    let ends = try Ends()
    // given a worker whose spin fell to 1 µs, waiting with a limit far above any wait here
    ends.worker.spin_budget = 1_000
    // then each request that comes within the limit doubles its spin
    #expect(try Self.budgetAfterASleep(ends, spin: 60_000_000_000) == 2_000)
    #expect(try Self.budgetAfterASleep(ends, spin: 60_000_000_000) == 4_000)
    // and never past the limit
    ends.worker.spin_budget = 3_000
    #expect(try Self.budgetAfterASleep(ends, spin: 5_000) <= 5_000)
  }

  @Test func aCallerThatSaysItSleepsIsWokenOnceAndOnlyThen() throws {
    let ends = try Ends()
    var byte: UInt8 = 7
    // given a caller awake: an answer wakes nothing
    let before = fh_channel_caller_wake_count(&ends.host)
    #expect(fh_channel_write(&ends.worker, &byte, 1, 0) == 1)
    #expect(fh_channel_caller_wake_count(&ends.host) == before)
    // and a caller about to sleep with an answer waiting does not sleep
    #expect(fh_channel_caller_sleep(&ends.host, 0, before, -1) == 1)
    #expect(fh_channel_read(&ends.host, &byte, 1) == 1)
    // when a caller sleeps with no limit, the worker's next answer wakes it, once
    let woke = DispatchSemaphore(value: 0)
    nonisolated(unsafe) let shared = ends
    let seen = fh_channel_caller_wake_count(&ends.host)
    let sleeper = Thread {
      _ = fh_channel_caller_sleep(&shared.host, 0, seen, -1)
      woke.signal()
    }
    sleeper.start()
    // (whether it sleeps yet or not: the wake count moves, so it cannot sleep past the answer)
    #expect(fh_channel_write(&ends.worker, &byte, 1, 0) == 1)
    #expect(woke.wait(timeout: .now() + 10) == .success)
    #expect(fh_channel_readable(&ends.host) == 1)
    // and the host itself can wake a sleeping caller (the listener does when the worker goes)
    let again = fh_channel_caller_wake_count(&ends.host)
    let second = Thread {
      _ = fh_channel_caller_sleep(&shared.host, 0, again, -1)
      woke.signal()
    }
    #expect(fh_channel_read(&ends.host, &byte, 1) == 1)
    second.start()
    fh_channel_wake_caller(&ends.host)
    #expect(woke.wait(timeout: .now() + 10) == .success)
    #expect(fh_channel_caller_wake_count(&ends.host) != again)
  }

  @Test func callbacksOfOtherThreadsTakeTheirOwnRingAndRingTheListenerOnlyWhenItSleeps() throws {
    let ends = try Ends()
    var byte: UInt8 = 9
    var ring = [UInt8](repeating: 0, count: 8)
    func rings() -> Int { recv(ends.sockets[0], &ring, ring.count, Int32(MSG_DONTWAIT)) }
    // given a listener awake: a callback goes to the callbacks ring, not among the replies, and
    // rings nothing
    #expect(fh_channel_write(&ends.worker, &byte, 1, 1) == 1)
    #expect(fh_channel_readable(&ends.host) == 0)
    #expect(fh_channel_callbacks_readable(&ends.host) == 1)
    #expect(rings() < 0)
    // when the listener says it sleeps with a callback waiting, it is told so
    #expect(fh_channel_listener_sleeps(&ends.host) == 1)
    var two = [UInt8](repeating: 0, count: 2)
    #expect(fh_channel_read_callbacks(&ends.host, &two, 2) == 1)
    #expect(two[0] == 9)
    // and once it sleeps, a reply does not ring it, the next callback rings once
    #expect(fh_channel_listener_sleeps(&ends.host) == 0)
    #expect(fh_channel_write(&ends.worker, &byte, 1, 0) == 1)
    #expect(rings() < 0)
    #expect(fh_channel_write(&ends.worker, &byte, 1, 1) == 1)
    #expect(fh_channel_write(&ends.worker, &byte, 1, 1) == 1)
    #expect(rings() == 1)
    #expect(fh_channel_callbacks_readable(&ends.host) == 2)
    #expect(fh_channel_readable(&ends.host) == 1)
  }

  @Test func heldRepliesShowWithTheNextReplyOrAreTakenOnceTheWorkerIsGone() throws {
    let ends = try Ends()
    var answer: [UInt8] = [1, 2, 3]
    var buffer = [UInt8](repeating: 0, count: 16)
    // given two answers held back: the host sees neither, and has nothing to take while none is
    #expect(fh_channel_take_committed(&ends.host) == 0)
    #expect(fh_channel_write_held(&ends.worker, &answer, 3) == 3)
    #expect(fh_channel_write_held(&ends.worker, &answer, 3) == 3)
    #expect(fh_channel_readable(&ends.host) == 0)
    // when the next answer is shown, all three are
    #expect(fh_channel_write(&ends.worker, &answer, 3, 0) == 3)
    #expect(fh_channel_readable(&ends.host) == 9)
    #expect(fh_channel_read(&ends.host, &buffer, 16) == 9)
    // and when the worker goes holding one back, the host takes it: the call was answered
    answer = [7, 8]
    #expect(fh_channel_write_held(&ends.worker, &answer, 2) == 2)
    #expect(fh_channel_readable(&ends.host) == 0)
    #expect(fh_channel_take_committed(&ends.host) == 1)
    #expect(fh_channel_read(&ends.host, &buffer, 16) == 2)
    #expect(buffer[0..<2] == [7, 8])
    #expect(fh_channel_intact(&ends.host) == 1)
  }

  @Test func aHeldPositionTheWorkerCannotHaveReachedIsNotTaken() throws {
    let ends = try Ends()
    var answer = [UInt8](repeating: 4, count: 123)
    #expect(fh_channel_write_held(&ends.worker, &answer, 123) == 123)
    // given the word in the header that says how far the worker wrote (the only one at 123)
    let header = UnsafeMutableRawPointer(try #require(ends.worker.shared)).bindMemory(to: UInt32.self, capacity: 1024)
    let words = (0..<1024).filter { header[$0] == 123 }
    try #require(words.count == 1)
    // when a hostile worker claims more than a ring past what the host read, or less than it
    // showed, the host takes nothing and reads nothing
    for claim in [ends.capacity + 1, UInt32.max] {
      header[words[0]] = claim
      #expect(fh_channel_take_committed(&ends.host) == 0)
      #expect(fh_channel_readable(&ends.host) == 0)
      #expect(fh_channel_intact(&ends.host) == 1)
    }
  }

  @Test func positionsTheWorkerCannotHaveReachedAreRefusedByTheHost() throws {
    // given a channel in use
    let ends = try Ends()
    let message = [UInt8](repeating: 1, count: 100)
    #expect(Self.pass(message, through: ends) == message)
    #expect(fh_channel_intact(&ends.host) == 1)
    // when the worker fills the shared memory with garbage, as a hostile plugin could
    memset(UnsafeMutableRawPointer(try #require(ends.worker.shared)), 0xA5, ends.worker.mapped)
    // then the host's end reads and writes nothing and says so, and the channel is not intact
    var buffer = [UInt8](repeating: 0, count: 16)
    #expect(fh_channel_read(&ends.host, &buffer, 16) == -1)
    #expect(fh_channel_readable(&ends.host) == -1)
    #expect(fh_channel_writable(&ends.host) == -1)
    #expect(fh_channel_read_callbacks(&ends.host, &buffer, 16) == -1)
    #expect(fh_channel_intact(&ends.host) == 0)
  }
}
