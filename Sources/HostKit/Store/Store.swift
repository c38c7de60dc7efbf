import FeatureJSON
import Foundation
import Synchronization

/// The serial loop that owns one instance: inbox -> reduce -> observe -> render.
///
/// Actions come from any thread (the terminal, effects, feedbacks) into a FIFO inbox; one thread per
/// store applies them in order. An emit made during dispatch is queued, never re-entered. Nothing
/// is dropped while the instance lives; actions that arrive once it is stopping are counted in the
/// `StopReport`, never applied. A feedback loop that does not settle within `maxFeedbackSteps`
/// pauses the store (see `resume()`).
///
/// The store is this facade over two parts: `StoreExternalState`, what any thread touches under
/// one lock (life, gate, inbox, timers, effects), and `StoreLoop`, what only the store thread
/// touches (the instance, the journal, the views, recovery).
///
/// Ownership: the store thread holds the store while it runs; `stop()` ends the thread, stops and
/// destroys the instance, and from then on only its owner keeps the store alive.
// @unchecked: its own properties are immutable; its parts say how each is guarded.
public final class Store: InstanceCallbackTarget, @unchecked Sendable {
  public let plugin: LoadedPlugin
  private let external: StoreExternalState
  private let loop: StoreLoop
  /// Fires real-time timers in deadline order.
  private let timerQueue = DispatchQueue(label: "featurehost.store.timers")
  /// Serializes calls on the retired instance made from `perform` once the store has closed.
  private let afterStop = NSLock()
  /// Left once the store thread let go of the store.
  private let threadExited = DispatchGroup()

  /// Creates the instance (with `config`, a JSON object) through `instances`, and the store
  /// thread. Call `start`, and `stop` when done: the thread keeps the store alive until then.
  public init(
    plugin: LoadedPlugin, config: String = "{}", options: Options = Options(), journal: (any StoreJournal)? = nil,
    instances: InstanceFactory = .inProcess, observer: @escaping @Sendable (StoreEvent) -> Void
  ) throws(HostError) {
    self.plugin = plugin
    let external = StoreExternalState(capacity: options.inboxCapacity, clock: options.clock)
    self.external = external
    // The instance's callbacks hold the store weakly, through a relay made before `self` is whole.
    let relay = CallbackRelay()
    loop = try StoreLoop(
      maker: InstanceMaker(plugin: plugin, config: config, factory: instances, relay: relay), options: options,
      journal: journal, external: external, observer: observer)
    relay.store = self
    // The thread holds the store only while `run` runs, and the store does not hold the thread:
    // once `stop` returned, the store lives exactly as long as its owner keeps it.
    let exited = threadExited
    exited.enter()
    let thread = Thread { [weak self] in
      self?.loop.run()
      exited.leave()
    }
    thread.name = "store.\(plugin.id)"
    thread.start()
  }

  /// What the instance is made with: a reload's new build gets the same.
  var config: String { loop.maker.config }
  var relay: CallbackRelay { loop.maker.relay }

  /// The instance the store thread calls (for tests, from inside `perform`).
  var instance: any PluginInstance {
    loop.assertOnStoreThread()
    return loop.instance
  }

  /// Starts the instance and queues its first action: `created`, or `restored` after restoring
  /// `state`. A refused state leaves the store unstarted and throws.
  public func start(restoring state: String? = nil) throws(HostError) {
    let id = plugin.id
    try start(restored: state != nil) { instance throws(HostError) in
      guard let state else { return }
      do throws(PluginCallError) {
        try instance.restore(state)
      } catch {
        throw HostError(StoreFailure.restoreRefused(feature: id, error))
      }
    }
  }

  /// Starts the instance after `prepare` set its state up (restore a snapshot, reduce a journal's
  /// actions), then queues `restored` (or `created` when `restored` is false).
  public func start(restored: Bool, prepare: @escaping (any PluginInstance) throws(HostError) -> Void)
    throws(HostError)
  {
    let id = plugin.id
    let external = self.external
    let result: Result<Void, HostError> = perform { instance in
      do throws(HostError) {
        try prepare(instance)
        do throws(PluginCallError) {
          try instance.start()
        } catch {
          throw HostError(StoreFailure.startFailed(feature: id, error))
        }
        external.started()
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    try result.get()
    send(restored ? #"{"type":"restored"}"# : #"{"type":"created"}"#, source: .lifecycle)
  }

  /// Marks the view as changed by a job (time travel): it is drawn once the inbox drains.
  /// Call it on the store thread, from inside `perform`.
  public func invalidateView() { loop.invalidateView() }

  /// The hints views are drawn with now (none where `Options.renderHints` is nil).
  public var renderHints: RenderHints { loop.renderHints }

  /// Whether the caller runs on this store's thread.
  public var isOnStoreThread: Bool { external.isOnStoreThread }

  /// Queues an action (a JSON object). Thread-safe. A user action waits while the inbox holds
  /// `inboxCapacity` items (unless sent from the store thread, or the store is paused or
  /// stopping); nothing else waits. `inputLine` (from 1), the line of input the action was read
  /// from, comes back with a refusal (`StoreEvent.rejected`).
  public func send(_ json: String, source: ActionSource, inputLine: Int? = nil) {
    external.enqueue(.action(json, source, inputLine: inputLine ?? 0), waitsForRoom: source == .user)
  }

  /// `body` on the instance, when called on the store thread (a listener hearing an event);
  /// nil elsewhere. Unlike `perform`, it keeps nothing of `body`.
  public func performHere<T>(_ body: (any PluginInstance) -> T) -> T? {
    external.isOnStoreThread ? body(loop.instance) : nil
  }

  /// Runs `body` on the store thread after everything queued before it, and returns its result.
  /// Once the store has stopped, runs it on the caller's thread, one caller at a time, with the
  /// retired instance: the state and view it had when it stopped, every other call refused.
  public func perform<T>(_ body: @escaping (any PluginInstance) -> T) -> T {
    perform(spinning: JobOutcome<T>.spin, body)
  }

  /// `perform`, the caller spinning up to `spin` for the result before it sleeps (`perform`: 50
  /// µs): for a caller whose job waits behind many queued items (an explorer's travel after the
  /// actions it streamed), so that the store thread need not wake it. Until the job is done the
  /// caller does `meanwhile` while it says it did some work (the explorer's checks), and spins
  /// after that.
  public func perform<T>(
    spinning spin: Duration, meanwhile: (() -> Bool)? = nil, _ body: @escaping (any PluginInstance) -> T
  ) -> T {
    if external.isOnStoreThread { return body(loop.instance) }
    let outcome = JobOutcome<T>()
    let retired = external.enqueueJob { instance in outcome.finish(body(instance)) }
    if let retired {
      afterStop.lock()
      defer { afterStop.unlock() }
      return body(retired)
    }
    return outcome.wait(spinning: spin, meanwhile: meanwhile)
  }

  /// Queues `body` for the store thread, after everything queued before it, and returns at once.
  /// Unlike `perform`'s, the journal is not committed before it: what it does shows nothing by
  /// itself (the next view commits first). Once the store has stopped, runs it at once on the
  /// caller's thread with the retired instance, outside `perform`'s lock: it may call `perform`.
  public func performLater(_ body: @escaping (any PluginInstance) -> Void) {
    if external.isOnStoreThread { return body(loop.instance) }
    guard let retired = external.enqueueJob(commitsFirst: false, body) else { return }
    body(retired)
  }

  /// Waits until nothing is queued, nothing is being applied and no effect is in flight, or until
  /// `timeout` passes, or the store pauses or stops.
  public func waitUntilSettled(timeout: Duration) -> SettleResult {
    external.waitUntilSettled(deadline: Date(timeIntervalSinceNow: timeout.seconds))
  }

  /// Waits until the inbox is empty and nothing is being applied (or the store paused or stopped),
  /// whatever effects are still in flight: everything queued before, and every action or step
  /// those emitted while being applied, has been handled. False when `timeout` passed first.
  @discardableResult
  public func waitUntilIdle(timeout: Duration) -> Bool {
    external.waitUntilIdle(deadline: Date(timeIntervalSinceNow: timeout.seconds))
  }

  /// Ends the call the instance is stuck in (a plugin in a loop, a worker that stopped
  /// answering), when it can (`InterruptibleInstance`): the call fails with a loss, and the store
  /// restarts the instance as after a crash. Any thread. Returns whether it could.
  @discardableResult
  public func interruptCall() -> Bool {
    guard let target = external.interruptTarget else { return false }
    target.interrupt()
    return true
  }

  /// Whether the store closed its feature after losing its instance (see `StoreEvent.closed`).
  public var isClosed: Bool { external.closedAfterLoss }

  /// Whether the runaway guard has paused the store.
  public var isPaused: Bool { external.isPaused }

  /// Effects the plugin reports as in flight.
  public var effectsRunning: Int { external.effectsRunning }

  /// Whether nothing is queued, in flight (effects) or pending (timers) and the store is not
  /// paused: read from a job on the store thread, the store is then as settling would leave it.
  public var isQuiet: Bool { external.isQuiet }

  /// Whether an effect or a timer has begun, or the runaway guard paused the store, since it
  /// started. Until then a job queued behind actions finds it as settling would leave it (see
  /// `isQuiet`), unless one of those actions begins the first.
  public var hasBeenBusy: Bool { external.hasBeenBusy }

  /// Whether `holdFeedback` holds the feedback loop.
  public var isFeedbackHeld: Bool { external.isFeedbackHeld }

  /// Holds a running feedback loop (a regulation): its actions, sent at once or by timers, wait
  /// in the inbox, neither applied nor journaled, until `resume()`; every other action and job
  /// goes on, so the journal stays what replay and restore expect. False, doing nothing, when no
  /// feedback action is queued or timed, or the loop is held already. Any thread.
  public func holdFeedback() -> Bool { external.holdFeedback() }

  /// Effects in flight other than the timers of the feedback loop: work a person waits for (a
  /// page being loaded), where a regulation shows its own progress.
  public var effectsAwaited: Int { external.effectsAwaited }

  /// Lifts a pause (or a held feedback loop): the queued actions are applied again, with a fresh
  /// feedback budget.
  public func resume() { external.resume() }

  /// Stops the instance (cancelling its effects), destroys it and ends the store thread.
  /// Idempotent. Not on the store thread (it waits for that thread to end).
  @discardableResult
  public func stop() -> StopReport {
    precondition(!isOnStoreThread, "stop() waits for the store thread; call it from another thread")
    let report = external.stopAndWait()
    threadExited.wait()
    return report
  }

  /// A line to show under the view while the journal cannot commit; nil when all is saved.
  /// Any thread.
  public var unsavedMark: String? { Self.unsavedMark(external.unsavedError) }

  static func unsavedMark(_ error: HostError?) -> String? {
    error.map { "(not saved: \($0.message); retrying at each change)" }
  }

  /// Reloads the instance from `build`; `previous` is the build it replaces (for the note and
  /// the journal). `made` is an instance of `build` made beforehand (not started; made with this
  /// store's `config` and callback target), else one is made here. `announce` hears the result on
  /// the store thread before the view is drawn again (so a note about it comes before the view).
  /// See `InstanceReload`.
  @discardableResult
  public func reload(
    to build: PluginBuild, replacing previous: PluginBuild, made: (any PluginInstance)? = nil,
    announce: @escaping @Sendable (Result<ReloadReport, HostError>) -> Void = { _ in }
  ) -> Result<ReloadReport, HostError> {
    // @unchecked: handed to the store thread, which alone uses it from then on.
    struct Made: @unchecked Sendable { let instance: (any PluginInstance)? }
    let made = Made(instance: made)
    let loop = self.loop
    return perform { running in
      InstanceReload(loop: loop, build: build, previous: previous, made: made.instance)
        .run(running: running, onStoreThread: loop.external.isOnStoreThread, announce: announce)
    }
  }

  // MARK: - Callbacks from the plugin, any thread

  public func instanceEmitted(_ json: String, origin: EmitOrigin) {
    external.enqueue(item(emitted: json, origin: origin))
  }

  /// Each emit checked as one alone is, the lot queued under one lock with one wake-up.
  public func instanceEmitted(_ emits: [InstanceEmit]) {
    external.enqueue(contentsOf: emits.map { item(emitted: $0.json, origin: $0.origin) })
  }

  /// What an emit queues: the action, or (counted) the report of why it is none.
  private func item(emitted json: String, origin: EmitOrigin) -> InboxItem {
    if let reason = EmittedAction.problem(in: json) { return refusedEmitItem(json, reason: reason) }
    return .action(json, origin == .feedback ? .feedback : .effect)
  }

  /// The most items the inbox held at once (tests).
  var inboxPeak: Int { external.inboxPeak }

  /// Emits refused so far because they were not actions.
  public var refusedEmits: Int { external.refusedEmits }

  /// Counts an emit that is not an action and reports it on the store thread, in order.
  private func refuseEmit(_ json: String, reason: String) {
    external.enqueue(refusedEmitItem(json, reason: reason))
  }

  /// Counts a refused emit; the item that reports it.
  private func refusedEmitItem(_ json: String, reason: String) -> InboxItem {
    external.countRefusedEmit()
    let failure = StoreFailure.emitRefused(feature: plugin.id, action: EmittedAction.excerpt(json), reason: reason)
    return .refusedEmit(HostError(failure))
  }

  public func instanceEmittedStep(_ json: String) { external.enqueue(.step(json)) }

  /// A worker lost between calls is recovered now, not at the next action: a call from a job
  /// meets the loss and the store handles it as any.
  public func instanceLostBetweenCalls() {
    _ = external.enqueueJob { instance in _ = try? instance.render() }
  }

  /// A worker's listener holds the plugin's emits back while the inbox is full: its threads then
  /// wait for the store rather than fill the host's memory.
  public func instanceWaitForRoom(atMost: Duration) -> Bool { external.waitForEmitRoom(atMost: atMost) }

  public func instanceScheduled(after nanoseconds: UInt64, actions: String, origin: EmitOrigin) -> UInt64 {
    // One action object, or an array of them delivered together.
    guard let value = try? JSONValue.parse(actions) else { return 0 }
    let list = value.arrayValue ?? [value]
    guard !list.isEmpty, list.allSatisfy({ $0["type"]?.stringValue != nil }) else {
      refuseEmit(
        actions, reason: "a timer's actions must be action objects (or an array of them) with a string \"type\"")
      return 0
    }
    let source: ActionSource = origin == .feedback ? .feedback : .effect
    guard let id = external.schedule(after: nanoseconds, actions: list.map { $0.serialized() }, source: source)
    else { return 0 }
    if external.clock == .real {
      let external = self.external
      timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max))))) {
        [weak external] in external?.fire([id])
      }
    }
    return id
  }

  /// Whether timer `id` has neither fired nor been cancelled.
  public func instanceTimerPending(_ id: UInt64) -> Bool { external.isTimerPending(id) }

  public func instanceCancelledTimer(_ id: UInt64) { external.cancelTimer(id) }

  /// Moves a manual clock forward: the timers due by then fire, in deadline order (then the
  /// order they were scheduled), their actions queued as emitted. Wait with `waitUntilIdle` for
  /// them to be applied.
  public func advanceClock(by duration: Duration) {
    let nanoseconds =
      UInt64(duration.components.seconds) * 1_000_000_000
      + UInt64(duration.components.attoseconds / 1_000_000_000)
    external.fire(external.advanceClock(by: nanoseconds))
  }

  /// Settles a store whose timers follow the manual clock: while nothing but timers is left in
  /// flight, moves the clock to the next timer's deadline (one tick) and applies what it fires,
  /// so a paced feature (levels' feedback every 50 ms) runs its course without waiting for real
  /// time. Then waits for whatever else is in flight, as `waitUntilSettled`.
  ///
  /// At most `maxTicks` ticks: a feedback loop that never ends leaves its timer pending, which is
  /// its pace, not a failure. Any thread but the store's. Returns how it settled and the ticks.
  public func settleMovingClock(timeout: Duration, maxTicks: Int = 10_000) -> (result: SettleResult, ticks: Int) {
    guard external.clock == .manual else { return (waitUntilSettled(timeout: timeout), 0) }
    var ticks = 0
    while true {
      // Idle first: the action a timer fired may schedule the next timer as it is applied.
      guard waitUntilIdle(timeout: timeout) else { return (.timedOut, ticks) }
      if isClosed { return (.stopped, ticks) }
      if isPaused { return (.paused, ticks) }
      if pendingTimers == 0 { return (waitUntilSettled(timeout: timeout), ticks) }
      // Only timers left, or the ticks used up: settled as far as a person waits. Another effect
      // (a network call) may still deliver, between ticks, as it would at a real pace.
      if ticks >= maxTicks { return (.settled, ticks) }
      let due = external.advanceClockToNextTimer()
      guard !due.isEmpty else { return (.settled, ticks) }
      ticks += 1
      external.fire(due)
    }
  }

  /// Timers not yet fired or cancelled.
  public var pendingTimers: Int { external.pendingTimers }

  public func instanceLogged(level: LogLevel, message: String) { loop.observer(.log(level: level, message: message)) }

  public func instanceRefused(_ refusal: SandboxRefusal) { loop.observer(.refusedBySandbox(refusal)) }

  public func instanceEffectBegan() { external.effectBegan() }

  public func instanceEffectEnded() { external.effectEnded() }
}
