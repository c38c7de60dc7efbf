import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The part of a store that any thread touches: its life, its gate, the inbox, the timers, the
/// effects in flight and the journal's unsaved mark, all under one lock (swift-nio's external
/// state; the store thread's own state is `StoreLoop`).
///
/// Every method takes the lock itself; the waits (backpressure, settling, stop) wait on it.
// @unchecked: every stored property is guarded by `condition`, but the atomics (`storeThreadID`,
// `arrivals`, `everBusy`) and `clock` (a constant).
final class StoreExternalState: @unchecked Sendable {
  private let condition = NSCondition()
  private var life: StoreLife = .starting
  private var gate: StoreGate = .open
  private var activity: StoreActivity = .idle
  /// Not checked for exclusivity at run time (~80 instructions an access, twice per line on the
  /// sender's side): every access holds `condition`.
  @exclusivity(unchecked) private var inbox: Inbox
  private var timers: StoreTimers
  private var effectsInFlight = 0
  /// Whether an effect or a timer has begun, or the store paused, since it started: set under
  /// the lock, read without it (an explorer asks at every action).
  private let everBusy = Atomic<Bool>(false)
  /// Set while the journal cannot commit: what the user sees is not on disk.
  private var unsaved: HostError?
  /// The instance, when its calls can be interrupted; replaced with it.
  private var interruptible: (any InterruptibleInstance)?
  /// The store thread while it runs (0: none), read without the lock: only the store thread
  /// finds itself there, and it wrote it.
  private let storeThreadID = Atomic<UInt>(0)
  /// Whether a worker's listener waits for the store thread to take a batch.
  private var emitterWaits = false
  /// Threads other than the store thread waiting on `condition` (to settle, for room, for the
  /// stop): while there are any, new items wake every waiter, since a signal could wake one of
  /// them and leave the store thread asleep with items queued.
  private var othersWaiting = 0
  /// Items queued so far and requests to end, read without the lock by the store thread while
  /// it waits a moment for the next item (`awaitArrival`).
  private let arrivals = Atomic<UInt64>(0)

  init(capacity: Int, clock: StoreClock) {
    inbox = Inbox(capacity: capacity)
    timers = StoreTimers(clock: clock)
    self.clock = clock
  }

  private func locked<T>(_ body: () -> T) -> T {
    condition.lock()
    defer { condition.unlock() }
    return body()
  }

  /// Waits on `condition` (held) as a thread other than the store thread.
  private func waitAsOther() {
    othersWaiting += 1
    condition.wait()
    othersWaiting -= 1
  }

  /// `waitAsOther` until `deadline`; false when it passed.
  private func waitAsOther(until deadline: Date) -> Bool {
    othersWaiting += 1
    defer { othersWaiting -= 1 }
    return condition.wait(until: deadline)
  }

  /// Tells the store thread that items came (`condition` held).
  private func itemsQueued() {
    arrivals.add(1, ordering: .releasing)
    if othersWaiting > 0 { condition.broadcast() } else { condition.signal() }
  }

  // MARK: - Any thread

  /// Whether the caller runs on the store thread.
  var isOnStoreThread: Bool {
    let id = storeThreadID.load(ordering: .relaxed)
    return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
  }

  /// Queues `item`; a user action first waits while the inbox is full (unless sent from the store
  /// thread, or the store is gated or ending).
  func enqueue(_ item: InboxItem, waitsForRoom: Bool = false) {
    condition.lock()
    defer { condition.unlock() }
    if waitsForRoom && inbox.isFull && !isOnStoreThread {
      while inbox.isFull, case .open = gate, !life.isEnding { waitAsOther() }
    }
    if inbox.accept(item, life: life) { itemsQueued() }
  }

  /// Queues `items` in order, under one lock and with one wake-up (a worker's listener hands
  /// over the emits of one read of its ring). Nothing waits for room.
  func enqueue(contentsOf items: [InboxItem]) {
    condition.lock()
    defer { condition.unlock() }
    var accepted = false
    for item in items where inbox.accept(item, life: life) { accepted = true }
    if accepted { itemsQueued() }
  }

  /// Waits at most `atMost` while the inbox is full; true when there is room, or the store
  /// does not take from it now (gated or ending: holding back would only wait), false when
  /// it is still full.
  func waitForEmitRoom(atMost: Duration) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date() + Double(atMost.components.attoseconds) / 1e18 + Double(atMost.components.seconds)
    while inbox.isFull {
      guard case .open = gate, !life.isEnding, !isOnStoreThread else { return true }
      emitterWaits = true
      if !waitAsOther(until: deadline) { return !inbox.isFull }
    }
    return true
  }

  /// Queues a job for the store thread; once the store has closed, returns what answers for the
  /// instance instead, queuing nothing.
  func enqueueJob(commitsFirst: Bool = true, _ body: @escaping (any PluginInstance) -> Void) -> RetiredInstance? {
    locked {
      if let retired = life.retired { return retired }
      inbox.append(job: body, commitsFirst: commitsFirst)
      itemsQueued()
      return nil
    }
  }

  /// Waits until nothing is queued or applied and no effect is in flight (`.settled`), or the
  /// store is gated (`.paused`) or closed, or `deadline` passes.
  func waitUntilSettled(deadline: Date) -> SettleResult {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if life.isClosed { return .stopped }
      // A store closing its feature after a loss stops by itself: that is what it settles to.
      if case .closing(afterLoss: true) = life {
        if !waitAsOther(until: deadline) { return .timedOut }
        continue
      }
      if !activity.isApplying {
        switch gate {
        case .paused: return .paused
        case .feedbackHeld where !inbox.hasRunnableItem(under: gate): return .paused
        case .open, .feedbackHeld: break
        }
      }
      if isSettled { return .settled }
      if !waitAsOther(until: deadline) { return isSettled ? .settled : .timedOut }
    }
  }

  private var isSettled: Bool { inbox.isEmpty && !activity.isApplying && effectsInFlight == 0 }

  /// Waits until nothing runnable is queued or applied (whatever effects are in flight), or the
  /// store closed. False when `deadline` passed first.
  func waitUntilIdle(deadline: Date) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while !life.isClosed && (activity.isApplying || (gate != .paused && inbox.hasRunnableItem(under: gate))) {
      if !waitAsOther(until: deadline) { return false }
    }
    return true
  }

  /// The instance whose call may be interrupted now: none once the store is ending.
  var interruptTarget: (any InterruptibleInstance)? { locked { life.isEnding ? nil : interruptible } }

  var closedAfterLoss: Bool { locked { life.endedAfterLoss } }
  var isPaused: Bool { locked { gate == .paused } }
  var isFeedbackHeld: Bool { locked { gate == .feedbackHeld } }
  var effectsRunning: Int { locked { effectsInFlight } }
  var effectsAwaited: Int { locked { max(0, effectsInFlight - timers.feedbackCount) } }
  var refusedEmits: Int { locked { inbox.report.refused } }
  var inboxPeak: Int { locked { inbox.peak } }
  var hasEmitterWaiting: Bool { locked { emitterWaits } }
  var pendingTimers: Int { locked { timers.count } }
  /// Nothing queued, no effect in flight, no timer pending, not paused.
  var isQuiet: Bool { locked { inbox.isEmpty && effectsInFlight == 0 && timers.count == 0 && gate != .paused } }
  var hasBeenBusy: Bool { everBusy.load(ordering: .acquiring) }
  var unsavedError: HostError? { locked { unsaved } }

  /// Holds a running feedback loop (see `Store.holdFeedback`). False when none runs, or the store
  /// is gated already or ending.
  func holdFeedback() -> Bool {
    locked {
      guard gate == .open, !life.isEnding else { return false }
      let running =
        activity == .applying(withFeedback: true) || inbox.holdsFeedbackAction || timers.feedbackCount > 0
      if running { gate = .feedbackHeld }
      return running
    }
  }

  /// Opens the gate: held or paused actions are taken again.
  func resume() {
    locked {
      gate = .open
      condition.broadcast()
    }
  }

  /// Asks the store thread to close, and waits until it has: what the inbox counted.
  func stopAndWait() -> StopReport {
    condition.lock()
    defer { condition.unlock() }
    if life.stopRequested() {
      // A store thread looking for its next item stops looking.
      arrivals.add(1, ordering: .releasing)
      condition.broadcast()
    }
    while !life.isClosed { waitAsOther() }
    return inbox.report
  }

  /// Counts an emit refused because it is not an action.
  func countRefusedEmit() { locked { inbox.countRefusedEmit() } }

  // MARK: - Timers and effects, any thread

  /// Adds a timer, counted as an effect; nil once the store is ending.
  func schedule(after nanoseconds: UInt64, actions: [String], source: ActionSource) -> UInt64? {
    locked {
      guard !life.isEnding else { return nil }
      effectsInFlight += 1
      everBusy.store(true, ordering: .releasing)
      return timers.schedule(after: nanoseconds, actions: actions, source: source)
    }
  }

  /// What time the timers follow; set once (read without the lock: `timers` changes under it).
  let clock: StoreClock

  func isTimerPending(_ id: UInt64) -> Bool { locked { timers.isPending(id) } }

  func cancelTimer(_ id: UInt64) {
    locked {
      guard timers.remove(id) != nil else { return }
      effectsInFlight = max(0, effectsInFlight - 1)
      condition.broadcast()
    }
  }

  /// Moves the manual clock: the ids of the timers now due, in order.
  func advanceClock(by nanoseconds: UInt64) -> [UInt64] { locked { timers.advance(by: nanoseconds) } }

  /// Moves the manual clock to the next timer's deadline: the ids of the timers due then.
  func advanceClockToNextTimer() -> [UInt64] { locked { timers.advanceToNextDeadline() } }

  /// Fires timers `ids`: their actions are queued as emitted (counted as unapplied once the store
  /// is ending).
  func fire(_ ids: [UInt64]) {
    locked {
      for id in ids {
        guard let timer = timers.remove(id) else { continue }
        effectsInFlight = max(0, effectsInFlight - 1)
        if life.isEnding {
          inbox.countUnapplied(timer.actions.count)
        } else {
          inbox.append(actions: timer.actions, source: timer.source)
        }
      }
      condition.broadcast()
    }
  }

  func effectBegan() {
    locked {
      effectsInFlight += 1
      everBusy.store(true, ordering: .releasing)
    }
  }

  func effectEnded() {
    locked {
      effectsInFlight = max(0, effectsInFlight - 1)
      condition.broadcast()
    }
  }

  // MARK: - The store thread

  /// The store thread begins.
  func threadBegan() {
    locked {
      storeThreadID.store(UInt(pthread_self()), ordering: .relaxed)
    }
  }

  /// Waits for items the gate admits and moves them into `batch`; false when the store is ending.
  func takeBatch(into batch: inout [InboxItem]) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while !life.isEnding && !inbox.hasRunnableItem(under: gate) { condition.wait() }
    if case .closing = life { return false }
    inbox.take(under: gate, into: &batch)
    activity = .applying(withFeedback: batch.holdsFeedbackAction)
    // Senders held back by a full inbox may go on.
    if batch.count >= inbox.capacity || emitterWaits {
      emitterWaits = false
      condition.broadcast()
    }
    return true
  }

  /// Spins up to `limit` while the inbox stays empty, for an item about to come: it is then
  /// taken with no futex wake-up on either side. Yields the CPU after the first turns (the
  /// sender may need it). Only after a job, which its caller waits for: a store whose inbox ran
  /// dry otherwise sleeps at once, leaving the CPU to a worker or a reader. Store thread.
  func awaitArrival(for limit: Duration) {
    let seen = arrivals.load(ordering: .acquiring)
    // Read after `seen`: an item or an end that came before is seen here, one after it moves it.
    guard locked({ inbox.isEmpty && !life.isEnding }) else { return }
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    var turns = 0
    while arrivals.load(ordering: .acquiring) == seen {
      turns += 1
      if turns > 64 { sched_yield() }
      // Yielding, 64 turns may outlast the limit; ending it sooner slowed exploring (BENCHMARKS.md).
      if turns & 63 == 0, clock.now >= deadline { return }
    }
  }

  /// Puts the items of a batch not handled back at the front of the inbox.
  func putBack(_ rest: ArraySlice<InboxItem>) { locked { inbox.putBack(rest) } }

  var isInboxEmpty: Bool { locked { inbox.isEmpty } }

  /// The batch is done.
  func batchEnded() {
    locked {
      activity = .idle
      condition.broadcast()
    }
  }

  /// The instance started.
  func started() { locked { life.started() } }

  var isRunning: Bool { locked { life.isRunning } }

  /// The runaway guard pauses the store.
  func pause() {
    locked {
      gate = .paused
      everBusy.store(true, ordering: .releasing)
    }
  }

  /// The instance was lost and not replaced: the store closes.
  func lost() {
    locked {
      life.lost()
      arrivals.add(1, ordering: .releasing)
      condition.broadcast()
    }
  }

  /// The instance was lost, or replaced by `instance` (a reload): the old one's effects and
  /// timers end with it.
  func instanceReplaced(by instance: (any PluginInstance)?) {
    locked {
      effectsInFlight = 0
      timers.removeAll()
      interruptible = instance as? any InterruptibleInstance
      condition.broadcast()
    }
  }

  /// `instance` is the one whose calls `interruptCall` ends from now on.
  func interruptible(_ instance: any PluginInstance) {
    locked { interruptible = instance as? any InterruptibleInstance }
  }

  /// The instance is about to be replaced: its calls are no longer interrupted; returns the
  /// effects in flight.
  func instanceLeaving() -> Int {
    locked {
      interruptible = nil
      return effectsInFlight
    }
  }

  /// Records whether the journal could commit: true when that changed.
  func setUnsaved(_ error: HostError?) -> Bool {
    locked {
      let changed = (unsaved == nil) != (error == nil)
      unsaved = error
      return changed
    }
  }

  /// Closing, before the instance stops: its timers are cancelled.
  func cancelTimersAtClose() {
    locked { effectsInFlight = max(0, effectsInFlight - timers.removeAll()) }
  }

  /// Closing, last: the items still queued (their actions counted as unapplied), or, when none is
  /// left, nil after the store became closed with `retired` answering from now on.
  func drainOrClose(retired: RetiredInstance) -> [InboxItem]? {
    locked {
      let left = inbox.drain()
      guard left.isEmpty else { return left }
      life.closed(retired: retired)
      // The thread ends now, and another thread may get its id.
      storeThreadID.store(0, ordering: .relaxed)
      // feature_abi.h: once stop returned, every effect still in flight counts as ended.
      effectsInFlight = 0
      condition.broadcast()
      return nil
    }
  }
}
