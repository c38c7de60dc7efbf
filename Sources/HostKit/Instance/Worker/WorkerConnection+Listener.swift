import CWorkerRing
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What a worker's callers and its listener both keep, under one Mutex.
///
/// Callbacks reach the host on two rings read by two threads (the serving thread's with its
/// replies, the plugin's other threads' through the listener), so two that the plugin made in
/// one order can be delivered in the other: an effect's end before its beginning, a timer's
/// cancel before its schedule. The book puts them back in order.
struct WorkerBook {
  /// Set once the worker is gone; every later call throws it.
  var loss: InstanceLoss?
  /// Set by the listener when the worker broke the callbacks ring (it is then killed).
  var brokenBy: String?
  /// The worker's timer ids to the target's.
  var timers: [UInt64: UInt64] = [:]
  /// The size of `timers` at which the fired ones are dropped.
  var timersToPruneAt = 64
  /// Cancels of timers whose schedule has not been delivered yet (at most `earlyCancelLimit`).
  var earlyCancels: Set<UInt64> = []
  /// Effects delivered as begun and not yet as ended, and ends that came before their beginning
  /// (held, and delivered right after it).
  var effects = 0
  var endsAhead = 0

  static let earlyCancelLimit = 1_024

  /// Whether an effect's end, which came first, goes on to the target right after its beginning.
  mutating func effectBegan() -> Bool {
    guard endsAhead == 0 else {
      endsAhead -= 1
      return true
    }
    effects += 1
    return false
  }

  /// Whether an effect's end goes on to the target (not before its beginning did).
  mutating func effectEnded() -> Bool {
    guard effects == 0 else {
      effects -= 1
      return true
    }
    endsAhead += 1
    return false
  }

  /// Records a cancel; whether it was of a timer the target has (`hostID`).
  mutating func cancel(_ id: UInt64) -> UInt64? {
    if let hostID = timers.removeValue(forKey: id) { return hostID }
    // Its schedule is on its way, or it fired and was let go: kept a while for the first.
    if earlyCancels.count >= Self.earlyCancelLimit, let oldest = earlyCancels.min() { earlyCancels.remove(oldest) }
    earlyCancels.insert(id)
    return nil
  }
}

/// When the listener stops holding the plugin's emits back though the target is full: a call
/// that gets no answer for a while may be waiting on the very thread that emits (a lock the
/// plugin holds while it emits), so one read of the ring then goes through.
struct HoldBack {
  /// How long the listener waits for the target before it looks again at the socket (a worker
  /// gone is seen within this).
  static let slice: Duration = .milliseconds(2)
  /// How long a call may go without an answer before the emits it may wait on go through.
  static let stall: Duration = .milliseconds(100)

  private var answered: UInt64
  private var since: ContinuousClock.Instant

  init(answered: UInt64, at now: ContinuousClock.Instant = .now) {
    (self.answered, since) = (answered, now)
  }

  /// After a slice the target stayed full: whether to let the emits through now, given the
  /// answers read so far and whether a call is waiting on the worker.
  mutating func letsThrough(answered: UInt64, inCall: Bool, at now: ContinuousClock.Instant = .now) -> Bool {
    guard inCall, answered == self.answered else {
      // The store gets answers, or waits on nothing of the worker's: holding back is safe.
      (self.answered, since) = (answered, now)
      return false
    }
    return now - since >= Self.stall
  }
}

extension WorkerConnection {
  /// Starts the listener thread; false when it could not.
  func startListener() -> Bool {
    let retained = Unmanaged.passRetained(self)
    var thread = pthread_t()
    let started = pthread_create(
      &thread, nil,
      { raw in
        guard let raw else { return nil }
        let connection = Unmanaged<WorkerConnection>.fromOpaque(raw).takeRetainedValue()
        connection.listen()
        return nil
      }, retained.toOpaque())
    guard started == 0 else {
      retained.release()
      return false
    }
    listener = thread
    return true
  }

  /// The listener thread's body: sleeps until the worker rings (callbacks waiting) or goes,
  /// delivers the callbacks and rides a burst of them for a moment before sleeping again; until
  /// destroyed or the worker is gone.
  private func listen() {
    var reader = FrameReader()
    while true {
      // What came while it was awake is delivered before it says it sleeps.
      while fh_channel_listener_sleeps(channel) != 0 {
        guard deliverCallbacks(&reader) else { break }
      }
      var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
      if poll(&descriptor, 1, -1) < 0 && errno == EINTR { continue }
      guard drainDoorbell() else {
        workerWent(&reader)
        return
      }
      while deliverCallbacks(&reader), fh_channel_callbacks_spin(channel, Self.listenerSpin) != 0 {}
    }
  }

  /// Reads the callbacks ring and delivers each whole frame, holding back while the target
  /// wants no more; false when the worker broke the ring (it is being killed: the socket will
  /// say it is gone) or the listener should look at the socket.
  private func deliverCallbacks(_ reader: inout FrameReader, holdingBack: Bool = true) -> Bool {
    if book.withLock({ $0.brokenBy }) != nil { return false }
    while true {
      if holdingBack, !holdBack() { return false }
      let read = reader.fill { fh_channel_read_callbacks(channel, $0, $1) }
      if read < 0 { return brokeCallbacks("moved its write position past the ring") }
      deliverRead(&reader)
      if reader.isOverlong { return brokeCallbacks("sent a frame longer than 1 GiB") }
      if read == 0 { return true }
    }
  }

  /// Delivers the whole frames `reader` holds, in order; emits in a row go to the target
  /// together, queued by the store in one go (a plugin's threads may emit hundreds of thousands
  /// a second, and each queued alone woke the store thread).
  private func deliverRead(_ reader: inout FrameReader) {
    var emits: [InstanceEmit] = []
    while var frame = reader.next() {
      if frame.kind == WorkerFrame.Message.emit.rawValue {
        let origin: EmitOrigin = frame.fields.byte() == 1 ? .feedback : .effect
        emits.append(InstanceEmit(frame.fields.string(), origin: origin))
        continue
      }
      if !emits.isEmpty {
        target?.instanceEmitted(emits)
        emits.removeAll(keepingCapacity: true)
      }
      deliver(frame.kind, &frame.fields)
    }
    if !emits.isEmpty { target?.instanceEmitted(emits) }
  }

  /// Waits while the target holds as much as it wants (see `HoldBack`); false when the worker
  /// went meanwhile.
  private func holdBack() -> Bool {
    guard let target else { return true }
    var hold = HoldBack(answered: answers.load(ordering: .relaxed))
    while !target.instanceWaitForRoom(atMost: HoldBack.slice) {
      // Destroying the instance may wait for the threads held back.
      if closing.load(ordering: .acquiring) { return true }
      var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
      if poll(&descriptor, 1, 0) > 0 && descriptor.revents & Int16(POLLHUP | POLLERR) != 0 { return false }
      let inCall = caller.load(ordering: .relaxed) != 0
      if hold.letsThrough(answered: answers.load(ordering: .relaxed), inCall: inCall) {
        stallReleases.add(1, ordering: .relaxed)
        return true
      }
    }
    return true
  }

  /// The worker wrote nonsense into the callbacks ring: it is killed, and said to have broken
  /// the channel when it is reaped.
  private func brokeCallbacks(_ what: String) -> Bool {
    book.withLock { if $0.brokenBy == nil { $0.brokenBy = what } }
    child.signalGroup(SIGKILL)
    return false
  }

  /// The socket closed: a caller is woken to find the loss itself; between calls the listener
  /// reaps the worker and tells the target, which recovers now rather than at its next call.
  /// After `destroy` began, it only delivers what the worker wrote.
  private func workerWent(_ reader: inout FrameReader) {
    gone.store(true, ordering: .releasing)
    fh_channel_wake_caller(channel)
    // Whatever it wrote before it went is delivered.
    _ = deliverCallbacks(&reader, holdingBack: false)
    if closing.load(ordering: .acquiring) { return }
    role.lock()
    var lostNow = false
    if !closed, book.withLock({ $0.loss }) == nil {
      _ = lose(reap())
      lostNow = true
    }
    role.unlock()
    if lostNow { target?.instanceLostBetweenCalls() }
  }

  /// Hands one callback frame, from either ring, to the target.
  func deliver(_ kind: UInt8, _ fields: inout FrameFields) {
    guard let message = WorkerFrame.Message(rawValue: kind), let target else { return }
    switch message {
    case .reply, .done: break
    case .emit:
      let origin: EmitOrigin = fields.byte() == 1 ? .feedback : .effect
      target.instanceEmitted(fields.string(), origin: origin)
    case .log:
      let level = LogLevel(rawValue: Int(fields.byte())) ?? .error
      target.instanceLogged(level: level, message: fields.string())
    // Told to the target under the book's lock: the two rings' threads must not reorder them.
    case .effectBegan:
      book.withLock { book in
        let endedToo = book.effectBegan()
        target.instanceEffectBegan()
        if endedToo { target.instanceEffectEnded() }
      }
    case .effectEnded: book.withLock { if $0.effectEnded() { target.instanceEffectEnded() } }
    case .step: target.instanceEmittedStep(fields.string())
    case .schedule:
      let id = fields.uint64()
      let delay = fields.uint64()
      let origin: EmitOrigin = fields.byte() == 1 ? .feedback : .effect
      let hostID = target.instanceScheduled(after: delay, actions: fields.string(), origin: origin)
      guard hostID != 0 else { return }
      let cancelled = book.withLock { book in
        if book.earlyCancels.remove(id) != nil { return true }
        book.timers[id] = hostID
        // Fired timers are not reported back: let them go now and then, so the map stays as
        // small as the timers pending.
        if book.timers.count > book.timersToPruneAt {
          book.timers = book.timers.filter { target.instanceTimerPending($0.value) }
          book.timersToPruneAt = max(64, book.timers.count * 2)
        }
        return false
      }
      if cancelled { target.instanceCancelledTimer(hostID) }
    case .cancel:
      if let hostID = book.withLock({ $0.cancel(fields.uint64()) }) { target.instanceCancelledTimer(hostID) }
    case .refused:
      guard let kind = SandboxRefusal.Kind(frameByte: fields.byte()) else { return }
      target.instanceRefused(SandboxRefusal(kind: kind, subject: fields.string()))
    }
  }
}
