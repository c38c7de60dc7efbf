import CWorkerRing
import FeatureABI
import FeatureJSON
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The host's end of one worker: its process, the memory the two share for calls and callbacks
/// (`fh_channel`: requests, replies, and the callbacks of the plugin's other threads), and the
/// socket that says the worker is gone and rings the listener.
///
/// A caller holds `role` for the length of its exchange: it reads the replies ring, delivering
/// the callbacks the serving thread made during its call itself (so a reply costs no thread
/// hop); it spins a little while its answer is due, then sleeps on a futex the worker wakes.
/// Nothing on the way is a system call while both sides are awake. The listener thread alone
/// reads the callbacks ring (an effect's emits, timers, logs), and holds it back while the store
/// has a full inbox, so a plugin flooding the host waits instead of filling the host's memory;
/// it also sees the worker go (the socket closes) and wakes a caller that sleeps.
// @unchecked: the replies side is used under `role`, the callbacks side by the listener thread
// alone; what both touch is in `book` (a Mutex) or atomic.
final class WorkerConnection: @unchecked Sendable {
  typealias ChannelPointer = UnsafeMutablePointer<fh_channel>

  let feature: String
  let pid: pid_t
  let role = NSLock()
  let socket: Int32
  /// The channel and the frames read from it, behind pointers: used on every call, under
  /// `role`, without the runtime's exclusivity checks on a class's stored properties. The
  /// listener uses only the callbacks ring's fields.
  let channel: UnsafeMutablePointer<fh_channel>
  /// The read end of the worker's note pipe (-1: none), where the sandbox says why it stopped the
  /// worker, and the worker's private folder (nil: none), removed once it has ended.
  let sandbox: (notes: Int32, scratch: WorkerScratch?)
  /// What the plugin sees (`WorkerProcess.environment`), sent with `create`.
  let environment: [String: String]
  let child: RunningChild
  weak var target: (any InstanceCallbackTarget)?
  private let callTimeout: Double
  private let readerStorage: UnsafeMutablePointer<FrameReader>
  private var reader: FrameReader {
    _read { yield readerStorage.pointee }
    _modify { yield &readerStorage.pointee }
  }
  /// What callers and the listener both keep: how the worker was lost, its timers, its effects.
  /// A pthread mutex (`Locked`), not a `Mutex`: the two threads contend for it, and a `Mutex`
  /// handed over through the kernel is out of ThreadSanitizer's sight (it reported the effects
  /// told under it as races).
  let book = Locked(WorkerBook())
  /// Set once `book.loss` is: a call looks here before it takes the book's lock.
  let lossRecorded = Atomic<Bool>(false)
  /// Set by the listener when the socket closed (the worker is gone): a sleeping caller is woken
  /// to read what is left and reap it.
  let gone = Atomic<Bool>(false)
  /// Set by `destroy` (under `role`): calls are refused.
  var closed = false
  /// Set by `destroy` first: the worker's going is no loss; the listener delivers what it wrote
  /// until then without holding it back, then leaves.
  let closing = Atomic<Bool>(false)
  var listener: pthread_t?
  /// The thread inside `exchange` (0: none), read without `role` to refuse a re-entrant call.
  let caller = Atomic<UInt>(0)
  /// Reads the listener let through a full inbox because a call went unanswered (`HoldBack`).
  let stallReleases = Atomic<Int>(0)
  /// Replies read so far (the listener's sign that calls are answered).
  let answers = Atomic<UInt64>(0)
  /// Requests answered so far, and sent: with the count the worker says it began, which request
  /// of a batch brought it down.
  // Unchecked: only the caller holding `role` touches it, once an answer.
  @exclusivity(unchecked) private(set) var answeredTotal: UInt64 = 0
  /// Exchanges made so far (tests: what went in one).
  @exclusivity(unchecked) private(set) var exchanges = 0
  /// How the worker ended, once reaped (under `role`; `reap`).
  var reaped: InstanceLoss?

  /// Each ring's size: frames larger than this stream through it.
  static let ringCapacity = UInt32(FH_WORKER_RING_CAPACITY)
  /// How long a caller spins for its answer, and the listener for more callbacks, before sleeping.
  static let callSpin = 200_000
  static let listenerSpin = 20_000
  static let wokenSpin = 5_000
  /// The worker's end of the channel, in the worker process.
  static let channelDescriptor = WorkerServer.channelDescriptor

  private init(
    feature: String, child: RunningChild, socket: Int32, channel: fh_channel,
    sandbox: (notes: Int32, scratch: WorkerScratch?), environment: [String: String], target: any InstanceCallbackTarget,
    callTimeout: Double
  ) {
    self.feature = feature
    self.environment = environment
    self.child = child
    self.pid = child.pid
    self.socket = socket
    self.channel = .allocate(capacity: 1)
    self.channel.initialize(to: channel)
    readerStorage = .allocate(capacity: 1)
    readerStorage.initialize(to: FrameReader())
    self.sandbox = sandbox
    self.target = target
    self.callTimeout = callTimeout
  }

  /// Starts a worker (or takes the spare started for these settings) and the listener thread.
  /// `environment` is what the worker sees (`settings.environment`, worked out once by the
  /// caller).
  static func start(
    feature: String, target: any InstanceCallbackTarget, settings: WorkerSettings, environment: [String: String]
  ) throws(HostError) -> WorkerConnection {
    let process: WorkerProcess
    if let spare = WorkerSpare.shared.take(settings, environment: environment) {
      process = spare
    } else {
      process = try WorkerProcess.start(settings: settings, environment: environment)
    }
    let connection = WorkerConnection(
      feature: feature, child: process.child, socket: process.socket, channel: process.channel,
      sandbox: (process.notes, process.scratch), environment: process.environment, target: target,
      callTimeout: settings.callTimeout)
    guard connection.startListener() else {
      // Without it nothing would see the worker go while a caller sleeps.
      connection.destroy()
      throw HostError(
        "cannot start a thread for feature '\(feature)''s worker process: \(String(cString: strerror(errno)))",
        help: "end some programs or threads, or run with --isolation none")
    }
    return connection
  }

  deinit {
    fh_channel_unmap(channel)
    channel.deallocate()
    readerStorage.deinitialize(count: 1)
    readerStorage.deallocate()
  }

  // MARK: - Calls

  /// Whether this thread is in an exchange (handling a batch's answers): a call from it would wait
  /// for itself.
  var isExchangingOnThisThread: Bool { caller.load(ordering: .acquiring) == UInt(pthread_self()) }

  /// Sends `bytes` (`replies` requests) and reads until that many answers came, delivering
  /// callbacks as they arrive; `each` sees every reply, and the last is returned. Each answer
  /// is awaited at most the call timeout. `more`, when given, streams further requests: each time
  /// every byte so far is written it replaces them with the next ones and says how many (0: no
  /// more, the bytes left as they were).
  ///
  /// When the worker is lost, `blamed` is set to the index of the request it was serving (nil:
  /// none of them, it died between them) and the error is attributed to that request.
  func exchange(
    _ bytes: [UInt8], call: String, replies: Int, blamed: inout Int?,
    more: (inout [UInt8]) -> Int = { _ in 0 }, each: (WorkerReply) -> Void
  ) throws(PluginCallError) -> WorkerReply {
    var bytes = bytes
    return try exchange(streaming: &bytes, call: call, replies: replies, blamed: &blamed, more: more, each: each)
  }

  /// One request, answered: written straight into the ring when it is small (a call without
  /// text, or an action, as `FrameWriter.frame(_:_:)` writes them), else built in `writer`; its
  /// answer taken from the ring as it lies when it is a `done` frame (most dispatches'). The path
  /// of calls made one at a time, where a call's cost is what this side does besides waiting.
  func call(
    _ request: WorkerFrame.Request, _ text: String?, writer: inout FrameWriter, blamed: inout Int?
  ) throws(PluginCallError) -> WorkerReply {
    let direct: Bool
    switch request {
    case .dispatch, .reduce: direct = text.map { !$0.isEmpty } ?? true
    default: direct = text == nil
    }
    writer.bytes.removeAll(keepingCapacity: true)
    if !direct { writer.frame(request, text) }
    return try exchange(
      streaming: &writer.bytes, call: request.name, replies: 1, blamed: &blamed, direct: direct ? request : nil,
      text: text, more: { _ in 0 }, each: { _ in })
  }

  /// `exchange` with the bytes in the caller's buffer, which `more` swaps with its own: the
  /// caller keeps both buffers for its next batch (a batch of piped actions fills up to half a
  /// ring, 128 KB, that a new buffer would take in page by page). `direct`, when given, is a
  /// request (with `text`) written straight into the ring before `bytes`, or appended to them when
  /// it does not fit now.
  func exchange(
    streaming bytes: inout [UInt8], call: String, replies: Int, blamed: inout Int?,
    direct: WorkerFrame.Request? = nil, text: String? = nil, more: (inout [UInt8]) -> Int,
    each: (WorkerReply) -> Void
  ) throws(PluginCallError) -> WorkerReply {
    let me = UInt(pthread_self())
    guard caller.load(ordering: .acquiring) != me else {
      // A batch's result handler calling back in would wait for itself.
      throw PluginCallError(
        call: call, status: fh_status(FH_ERR_LIFECYCLE),
        message: "\(call) on '\(feature)' from inside a batch of calls, before its last answer")
    }
    role.lock()
    caller.store(me, ordering: .releasing)
    exchanges += 1
    defer {
      caller.store(0, ordering: .releasing)
      role.unlock()
    }
    // Destroyed first: a worker that left after destroy is no loss.
    guard !closed else {
      throw PluginCallError(
        call: call, status: fh_status(FH_ERR_LIFECYCLE), message: "\(call) on an instance that was destroyed")
    }
    // Lost between calls (the listener saw it go): this call never reached the worker.
    if lossRecorded.load(ordering: .acquiring), let loss = book.withLock({ $0.loss }) {
      throw error(call, loss).attributed(.notThisCall)
    }
    // Callbacks that came before this call are delivered before its answers.
    if reader.hasBytes || fh_channel_readable(channel) != 0, let broken = readChannel() {
      throw lost(call, broken, replies: replies, answered: 0, blamed: &blamed).attributed(.notThisCall)
    }
    var spun = false
    if let direct {
      let written = Self.write(direct, text, into: channel)
      if written < 0 {
        throw lost(
          call, broken("moved its read position past the host's"), replies: replies, answered: 0, blamed: &blamed)
      }
      if written == 0 {
        var writer = FrameWriter()
        writer.bytes = bytes
        writer.frame(direct, text)
        bytes = writer.bytes
      } else if replies == 1 {
        // Its answer cannot be there yet: wait for it before anything else, and take a `done`
        // where it lies. Anything else (callbacks first, no answer within the spin) goes the
        // general way below.
        let spin = channel.pointee.woke_peer != 0 ? Self.wokenSpin : Self.callSpin
        channel.pointee.woke_peer = 0
        if fh_channel_spin(channel, 0, spin) == 0 {
          // Spun for it already: the loop sleeps at once.
          spun = true
        } else if !reader.hasBytes, case let changed = fh_channel_take_done(channel), changed >= 0 {
          let reply = WorkerReply.done(changed: changed != 0)
          answeredTotal += 1
          answers.store(answeredTotal, ordering: .relaxed)
          each(reply)
          return reply
        }
      }
    }
    var replies = replies
    // Not an optional closure: that would escape, boxing what the caller's closure captures.
    var streaming = true
    var written = 0
    var answered = 0
    var last: WorkerReply?
    // Set when this side first sleeps, and again at its first sleep after an answer: no clock is
    // read while the answers come at once. `waited` is what an answer resets (a flag, where
    // storing nil into the optional Instant went through its generic value witness every answer).
    var deadline: ContinuousClock.Instant?
    var waited = false
    var readAfterGone = false
    // The worker is gone and reaped, its held answers made readable (`takingAnswers`): after one
    // more read, a call still unanswered (or more to send) fails with this loss.
    var ending: InstanceLoss?
    while answered < replies || streaming {
      var progressed = false
      if written == bytes.count, streaming, ending == nil {
        let added = more(&bytes)
        if added > 0 {
          written = 0
          replies += added
        } else {
          streaming = false
        }
      }
      if written < bytes.count, ending == nil {
        let count = bytes.withUnsafeBytes {
          fh_channel_write(channel, $0.baseAddress! + written, bytes.count - written, 0)
        }
        if count < 0 {
          throw lost(
            call, broken("moved its read position past the host's"), replies: replies, answered: answered,
            blamed: &blamed)
        }
        written += count
        progressed = count > 0
      }
      let read = reader.fill { fh_channel_read(channel, $0, $1) }
      if read < 0 {
        throw lost(
          call, broken("moved its write position past the ring"), replies: replies, answered: answered, blamed: &blamed)
      }
      progressed = progressed || read > 0
      while answered < replies, let reply = nextReply() {
        answered += 1
        answeredTotal += 1
        answers.store(answeredTotal, ordering: .relaxed)
        each(reply)
        // Only the last answer is returned: the others are not copied.
        if answered == replies { last = reply }
        waited = false
      }
      if reader.isOverlong {
        throw lost(
          call, broken("sent a frame longer than 1 GiB"), replies: replies, answered: answered, blamed: &blamed)
      }
      if let ending, answered < replies || streaming {
        throw lost(call, ending, replies: replies, answered: answered, blamed: &blamed)
      }
      if answered == replies || progressed { continue }
      let room = written < bytes.count ? min(bytes.count - written, Int(Self.ringCapacity)) : 0
      // A worker just woken from its sleep answers after the kernel runs it: sleeping costs this
      // side less than spinning that long, and keeps an idle feature's wake-ups cheap.
      let spin = channel.pointee.woke_peer != 0 ? Self.wokenSpin : Self.callSpin
      channel.pointee.woke_peer = 0
      if !spun, fh_channel_spin(channel, room, spin) != 0 { continue }
      spun = false
      // Read before `gone`: the listener sets it, then wakes this side.
      let seen = fh_channel_caller_wake_count(channel)
      if gone.load(ordering: .acquiring) {
        // What it wrote after this turn's read and before it went is read first, once: answers
        // left unread would blame a call it had answered.
        if !readAfterGone {
          readAfterGone = true
          continue
        }
        // Then what it wrote and held back (`fh_channel_write_held`), once reaped.
        ending = takingAnswers(reap())
        continue
      }
      if !waited {
        waited = true
        deadline = callTimeout > 0 ? ContinuousClock.now + .milliseconds(Int64(callTimeout * 1000)) : nil
      }
      let left = Self.nanoseconds(until: deadline)
      if left == 0 {
        child.signalGroup(SIGKILL)
        _ = child.finish(until: nil)
        ending = takingAnswers(.unresponsive(call: call, seconds: callTimeout))
        continue
      }
      _ = fh_channel_caller_sleep(channel, room, seen, left)
    }
    // Callbacks read after the answers are delivered now, not left for the listener.
    deliverCallbacks()
    guard let last else { throw error(call, lose(.exited(-1))) }
    return last
  }
  /// How many of the worker's timer ids are kept for a cancel (tests).
  var timersKept: Int { book.withLock { $0.timers.count } }

  /// Kills the worker when a call is waiting on it (any thread): the call then throws the loss,
  /// as for a crash. Does nothing between calls.
  func interruptCall() {
    guard caller.load(ordering: .acquiring) != 0 else { return }
    kill(-child.pid, SIGKILL)
  }

  /// Destroys the worker's instance (waiting at most the call timeout), ends the worker and
  /// reaps it, and stops the listener. Idempotent.
  func destroy() {
    role.lock()
    if closed {
      role.unlock()
      return
    }
    // From here the worker's going is no loss; the listener delivers what it wrote until then.
    closing.store(true, ordering: .releasing)
    var answered = false
    if book.withLock({ $0.loss }) == nil, listener != nil {
      var writer = FrameWriter()
      writer.frame(WorkerFrame.Request.destroy.rawValue)
      role.unlock()
      var blamed: Int?
      answered = (try? exchange(writer.bytes, call: "destroy", replies: 1, blamed: &blamed) { _ in }) != nil
      role.lock()
    }
    closed = true
    // A worker that did not leave after destroy is asked to; the socket's shutdown wakes the
    // listener.
    fh_channel_close(channel)
    shutdown(socket, Int32(SHUT_RDWR))
    if answered && WorkerExit.endsWithHost.load(ordering: .relaxed) {
      // It leaves right after its answer (`_exit`), and the kernel ends it with the host.
      child.leaveToExit()
    } else if !child.hasExited || book.withLock({ $0.loss }) == nil {
      _ = child.finish(until: ContinuousClock.now + .seconds(max(1, min(callTimeout, 5))))
    }
    let listener = self.listener
    self.listener = nil
    role.unlock()
    if let listener { pthread_join(listener, nil) }
    close(socket)
    if sandbox.notes >= 0 { close(sandbox.notes) }
    sandbox.scratch?.remove()
  }

  // MARK: - Reading (under `role`)

  /// Reads what the channel holds and delivers the callbacks among it (replies nobody waits for
  /// are dropped); the loss when the worker broke the channel.
  private func readChannel() -> InstanceLoss? {
    while true {
      let read = reader.fill { fh_channel_read(channel, $0, $1) }
      if read < 0 { return broken("moved its write position past the ring") }
      deliverCallbacks()
      if reader.isOverlong { return broken("sent a frame longer than 1 GiB") }
      if read == 0 { return nil }
    }
  }

  /// Writes `request` (with `text`, an action's, when given) straight into the ring: 1 when
  /// written, 0 when it takes the general way (no room now, or large), -1 when the worker moved
  /// its read position where it cannot be.
  private static func write(_ request: WorkerFrame.Request, _ text: String?, into channel: ChannelPointer) -> Int {
    guard var text else { return fh_channel_write_request(channel, request.rawValue, nil, 0) }
    return text.withUTF8 { fh_channel_write_request(channel, request.rawValue, $0.baseAddress, $0.count) }
  }

  /// Reads the doorbell's bytes; false at end of file or on an error: the worker is gone.
  func drainDoorbell() -> Bool {
    var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    while true {
      let count = withUnsafeMutableBytes(of: &bytes) { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if count > 0 { continue }
      if count < 0 && errno == EINTR { continue }
      return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }
  }

  /// The next reply, delivering the callbacks before it; nil when no whole reply is read yet.
  private func nextReply() -> WorkerReply? {
    if let changed = reader.nextDone() {
      return .done(changed: changed != 0)
    }
    while var frame = reader.next() {
      if frame.kind == WorkerFrame.Message.done.rawValue {
        return .done(changed: frame.fields.byte() != 0)
      }
      guard frame.kind == WorkerFrame.Message.reply.rawValue else {
        deliver(frame.kind, &frame.fields)
        continue
      }
      return WorkerReply(
        status: frame.fields.int32(), changed: frame.fields.byte() != 0, text: frame.fields.string(),
        extra: frame.fields.string())
    }
    return nil
  }

  /// Delivers every whole callback frame read; a reply nobody waits for is dropped.
  private func deliverCallbacks() {
    while var frame = reader.next() { deliver(frame.kind, &frame.fields) }
  }

  /// Nanoseconds left until `deadline` (-1: none; 0: passed).
  private static func nanoseconds(until deadline: ContinuousClock.Instant?) -> Int {
    guard let deadline else { return -1 }
    let left = deadline - ContinuousClock.now
    guard left > .zero else { return 0 }
    return max(
      1, Int(clamping: left.components.seconds) &* 1_000_000_000 + Int(left.components.attoseconds / 1_000_000_000))
  }
}
