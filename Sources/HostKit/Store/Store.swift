import FeatureJSON
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The serial loop that owns one instance: inbox -> reduce -> observe -> render.
///
/// Actions come from any thread (the terminal, effects, feedbacks) into a FIFO inbox; one thread per
/// store applies them in order. An emit made during dispatch is queued, never re-entered. Nothing
/// is dropped while the instance lives; actions that arrive once it is stopping are counted in the
/// `StopReport`, never applied. A feedback loop that does not settle within `maxFeedbackSteps`
/// pauses the store (see `resume()`).
///
/// Ownership: the store thread holds the store while it runs; `stop()` ends the thread, stops and
/// destroys the instance, and from then on only its owner keeps the store alive.
// @unchecked: mutable state is either guarded by `condition` or confined to the store thread
// (checked by `assertOnStoreThread`); plugins call back from any thread.
public final class Store: InstanceCallbackTarget, @unchecked Sendable {
  public struct Options: Sendable {
    /// Feedback actions applied in a row, with no action from elsewhere, before the store pauses.
    public var maxFeedbackSteps: Int = 10_000
    /// Whether to render after changes and report `viewChanged`.
    public var rendersViews: Bool = true
    /// The clock behind the instance's timers (`fh.clock/1`).
    public var clock: Clock = .real
    /// Whether a lost instance (see `InstanceLoss`) is restarted or its feature closed.
    public var recovery: RecoveryPolicy = .standard
    /// Whether a run of queued actions goes to the instance together (a worker process answers
    /// them in one exchange). An observer that calls the instance at each `.applied` (a test's
    /// snapshot after every action) needs false: the later actions are already in the worker.
    public var batchesDispatches: Bool = true
    /// User actions queued at most: a sender faster than the plugin waits in `send` until the
    /// store has taken them (backpressure), so a pipe of a million lines never sits in memory.
    /// Actions from effects and feedbacks are never held back (the store itself may be sending).
    public var inboxCapacity: Int = 4_096
    /// What the views are drawn with (`fh.render_options/1`), asked at each render: the
    /// terminal's width as it is now. Nil: the plain `render` (a pipe).
    public var renderHints: (@Sendable () -> RenderHints)?

    public init(
      maxFeedbackSteps: Int = 10_000, rendersViews: Bool = true, clock: Clock = .real,
      recovery: RecoveryPolicy = .standard, batchesDispatches: Bool = true, inboxCapacity: Int = 4_096
    ) {
      self.inboxCapacity = max(1, inboxCapacity)
      self.maxFeedbackSteps = maxFeedbackSteps
      self.rendersViews = rendersViews
      self.clock = clock
      self.recovery = recovery
      self.batchesDispatches = batchesDispatches
    }
  }

  /// What time a store's timers follow.
  public enum Clock: Sendable, Equatable {
    /// Real time: a timer fires once its delay has passed.
    case real
    /// Time stands still until `advanceClock(by:)` moves it: for tests of paced features.
    case manual
  }

  private struct Timer {
    let deadline: UInt64
    let actions: [String]
    let source: ActionSource
  }

  enum Item {
    /// An action, with the input line it was read from (0: not from numbered input).
    case action(String, ActionSource, inputLine: Int = 0)
    /// A navigation step, delivered in order with the actions around it.
    case step(String)
    /// An emit that is not an action, reported in order with the actions around it.
    case refusedEmit(HostError)
    case job((any PluginInstance) -> Void)
  }

  public let plugin: LoadedPlugin
  private let options: Options
  /// Where applied actions are recorded. A failed commit keeps it (see `unsavedError`); any other
  /// error drops it (with a `journalFailed` event).
  /// Internal (not private) from here on for `Store+Recovery.swift`.
  var journal: (any StoreJournal)?
  let observer: @Sendable (StoreEvent) -> Void
  /// What made the instance, and with what config: what makes the next one after a loss.
  let instances: InstanceFactory
  let config: String

  // Guarded by `condition`.
  let condition = NSCondition()
  /// Not checked for exclusivity at run time (~80 instructions an access, twice per line on the
  /// sender's side): every access holds `condition`.
  @exclusivity(unchecked) private var queue: [Item] = []
  private var processing = false
  /// Whether the batch being processed holds a feedback action: a regulation is running then too,
  /// between its timer firing and the plugin scheduling the next.
  private var feedbackInBatch = false
  var effectsInFlight = 0
  private var paused = false
  /// Set by `holdFeedback` (Ctrl-C at a terminal): feedback actions wait in the inbox.
  private var holdsFeedback = false
  var stopping = false
  /// Set when the store closed its feature after losing the instance (`Store+Recovery.swift`).
  var closedAfterLoss = false
  /// The instance, when its calls can be interrupted (`interruptCall`); replaced with it.
  var interruptible: (any InterruptibleInstance)?
  private var stopped = false
  private var unapplied = 0
  /// Set while the journal cannot commit: what the user sees is not on disk (`unsavedMark`).
  private var unsavedError: HostError?
  private var late = 0
  private var afterClosing = 0
  private var refused = 0
  private var timers: [UInt64: Timer] = [:]
  /// Forgets every timer: a lost instance's timers die with it. Call it under `condition`.
  func dropTimers() { timers.removeAll() }
  private var nextTimer: UInt64 = 1
  /// The manual clock's time, in nanoseconds since the store began.
  private var manualNow: UInt64 = 0
  /// Fires real-time timers in deadline order.
  private let timerQueue = DispatchQueue(label: "featurehost.store.timers")

  // Owned by the store thread while it runs; after stop, by callers of `perform`, one at a time.
  /// Replaced only when a lost instance is restarted (`Store+Recovery.swift`).
  var instance: any PluginInstance
  private var appliedCount = 0
  private var feedbackRun = 0
  /// Actions still to send one at a time after a loss no single action could be blamed for.
  var sendAlone = 0
  /// That loss, reported once the actions sent again are through without blaming one of them,
  /// and the journal's sequence its successor was restored at.
  var unattributedLoss: (loss: InstanceLoss, call: String, restartedAt: Int?)?
  var viewIsStale = true
  var lastView: String?
  /// Set after a restart: the error lines came after the last view, which is drawn again.
  var redrawsUnchanged = false
  /// Whether `start` succeeded: a loss before it is the launch's failure, not a crash to recover.
  var hasStarted = false
  /// The build the last reload moved to (store thread only): what the next reload replaces, even
  /// when another feature's reload of the same file has not yet made it the current build.
  var reloadedBuild: PluginBuild?
  /// Set when the instance was lost and not replaced: the store is closing.
  var isLost = false
  /// Counts crashes and decides restart or close.
  var recovery: RecoveryPolicy
  /// The store thread while it runs: written when it begins and ends, under `condition`.
  private var storeThread: pthread_t?
  /// Serializes calls on the instance made from `perform` once the store thread has ended.
  private let afterStop = NSLock()
  /// What answers `perform` once the instance was destroyed. Set under `condition` with `stopped`.
  private var retired: RetiredInstance?
  /// The instance's callback target, forwarding to this store (and to every instance after a loss).
  let relay: CallbackRelay
  /// Left once the store thread let go of the store.
  private let threadExited = DispatchGroup()

  /// Creates the instance (with `config`, a JSON object) through `instances`, and the store
  /// thread. Call `start`, and `stop` when done: the thread keeps the store alive until then.
  public init(
    plugin: LoadedPlugin, config: String = "{}", options: Options = Options(), journal: (any StoreJournal)? = nil,
    instances: InstanceFactory = .inProcess, observer: @escaping @Sendable (StoreEvent) -> Void
  ) throws(HostError) {
    self.plugin = plugin
    self.options = options
    self.observer = observer
    self.journal = journal
    self.instances = instances
    self.config = config
    recovery = options.recovery
    appliedCount = journal?.lastSequence ?? 0
    // The instance's callbacks hold the store weakly, through a relay made before `self` is whole.
    let relay = CallbackRelay()
    self.relay = relay
    instance = try instances.makeInstance(of: plugin, config: config, target: relay)
    interruptible = instance as? any InterruptibleInstance
    relay.store = self
    // The thread holds the store only while `run` runs, and the store does not hold the thread:
    // once `stop` returned, the store lives exactly as long as its owner keeps it.
    let exited = threadExited
    exited.enter()
    let thread = Thread { [weak self] in
      self?.run()
      exited.leave()
    }
    thread.name = "store.\(plugin.id)"
    thread.start()
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
    let result: Result<Void, HostError> = perform { instance in
      do throws(HostError) {
        try prepare(instance)
        do throws(PluginCallError) {
          try instance.start()
        } catch {
          throw HostError(StoreFailure.startFailed(feature: id, error))
        }
        self.hasStarted = true
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
  public func invalidateView() {
    assertOnStoreThread()
    viewIsStale = true
  }

  /// The hints views are drawn with now (none where `Options.renderHints` is nil).
  public var renderHints: RenderHints { options.renderHints?() ?? RenderHints() }

  /// Whether the caller runs on this store's thread.
  public var isOnStoreThread: Bool {
    condition.lock()
    defer { condition.unlock() }
    guard let storeThread else { return false }
    return pthread_equal(storeThread, pthread_self()) != 0
  }

  /// Traps (in debug builds) unless called on the store thread while it runs.
  func assertOnStoreThread(file: StaticString = #fileID, line: UInt = #line) {
    assert(isOnStoreThread, "a store-thread-only entry point was called from another thread", file: file, line: line)
  }

  /// Queues an action (a JSON object). Thread-safe. A user action waits while the inbox holds
  /// `inboxCapacity` items (unless sent from the store thread, or the store is paused or
  /// stopping); nothing else waits. `inputLine` (from 1), the line of input the action was read
  /// from, comes back with a refusal (`StoreEvent.rejected`).
  public func send(_ json: String, source: ActionSource, inputLine: Int? = nil) {
    enqueue(.action(json, source, inputLine: inputLine ?? 0), waitsForRoom: source == .user)
  }

  /// Waits until the inbox has room for one more user action. Call it under `condition`.
  private func waitForRoom() {
    guard queue.count >= options.inboxCapacity else { return }
    if let storeThread, pthread_equal(storeThread, pthread_self()) != 0 { return }
    while queue.count >= options.inboxCapacity && !paused && !holdsFeedback && !stopping && !stopped
      && !closedAfterLoss
    {
      condition.wait()
    }
  }

  /// Runs `body` on the store thread after everything queued before it, and returns its result.
  /// Once the store has stopped, runs it on the caller's thread, one caller at a time, with the
  /// retired instance: the state and view it had when it stopped, every other call refused.
  public func perform<T>(_ body: @escaping (any PluginInstance) -> T) -> T {
    if isOnStoreThread { return body(instance) }
    var result: T?
    let done = DispatchSemaphore(value: 0)
    condition.lock()
    if stopped, let retired {
      condition.unlock()
      afterStop.lock()
      defer { afterStop.unlock() }
      return body(retired)
    }
    queue.append(
      .job { instance in
        result = body(instance)
        done.signal()
      })
    condition.signal()
    condition.unlock()
    done.wait()
    guard let result else { fatalError("a job always sets its result before signalling") }
    return result
  }

  /// Waits until nothing is queued, nothing is being applied and no effect is in flight, or until
  /// `timeout` passes, or the store pauses or stops.
  public func waitUntilSettled(timeout: Duration) -> SettleResult {
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    condition.lock()
    defer { condition.unlock() }
    while true {
      if stopped { return .stopped }
      // A store closing its feature after a loss stops by itself: that is what it settles to.
      if closedAfterLoss {
        if !condition.wait(until: deadline) { return .timedOut }
        continue
      }
      if paused && !processing { return .paused }
      if holdsFeedback && !processing && !hasRunnableItem { return .paused }
      if queue.isEmpty && !processing && effectsInFlight == 0 { return .settled }
      if !condition.wait(until: deadline) {
        if queue.isEmpty && !processing && effectsInFlight == 0 { return .settled }
        return .timedOut
      }
    }
  }

  /// Waits until the inbox is empty and nothing is being applied (or the store paused or stopped),
  /// whatever effects are still in flight: everything queued before, and every action or step
  /// those emitted while being applied, has been handled. False when `timeout` passed first.
  @discardableResult
  public func waitUntilIdle(timeout: Duration) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    condition.lock()
    defer { condition.unlock() }
    while !stopped && (processing || (!paused && hasRunnableItem)) {
      if !condition.wait(until: deadline) { return false }
    }
    return true
  }

  /// Ends the call the instance is stuck in (a plugin in a loop, a worker that stopped
  /// answering), when it can (`InterruptibleInstance`): the call fails with a loss, and the store
  /// restarts the instance as after a crash. Any thread. Returns whether it could.
  @discardableResult
  public func interruptCall() -> Bool {
    condition.lock()
    let target = stopping || stopped ? nil : interruptible
    condition.unlock()
    guard let target else { return false }
    target.interrupt()
    return true
  }

  /// Whether the store closed its feature after losing its instance (see `StoreEvent.closed`).
  public var isClosed: Bool {
    condition.lock()
    defer { condition.unlock() }
    return closedAfterLoss
  }

  /// Whether the runaway guard has paused the store.
  public var isPaused: Bool {
    condition.lock()
    defer { condition.unlock() }
    return paused
  }

  /// Effects the plugin reports as in flight.
  public var effectsRunning: Int {
    condition.lock()
    defer { condition.unlock() }
    return effectsInFlight
  }

  /// Whether `holdFeedback` holds the feedback loop.
  public var isFeedbackHeld: Bool {
    condition.lock()
    defer { condition.unlock() }
    return holdsFeedback
  }

  /// Holds a running feedback loop (a regulation): its actions, sent at once or by timers, wait
  /// in the inbox, neither applied nor journaled, until `resume()`; every other action and job
  /// goes on, so the journal stays what replay and restore expect. False, doing nothing, when no
  /// feedback action is queued or timed, or the loop is held already. Any thread.
  public func holdFeedback() -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard !holdsFeedback, !paused, !stopping, !stopped else { return false }
    let running =
      feedbackInBatch || queue.contains(where: \.isFeedbackAction)
      || timers.values.contains { $0.source == .feedback }
    if running { holdsFeedback = true }
    return running
  }

  /// Whether the inbox holds an item the loop may take now: anything, but only jobs while
  /// paused and no feedback action while the feedback loop is held. Call it under `condition`.
  private var hasRunnableItem: Bool {
    if paused { return queue.contains(where: \.isJob) }
    if holdsFeedback { return queue.contains { !$0.isFeedbackAction } }
    return !queue.isEmpty
  }

  /// Effects in flight other than the timers of the feedback loop: work a person waits for (a
  /// page being loaded), where a regulation shows its own progress.
  public var effectsAwaited: Int {
    condition.lock()
    defer { condition.unlock() }
    return max(0, effectsInFlight - timers.values.reduce(0) { $0 + ($1.source == .feedback ? 1 : 0) })
  }

  /// Lifts a pause (or a held feedback loop): the queued actions are applied again, with a fresh
  /// feedback budget.
  public func resume() {
    condition.lock()
    paused = false
    holdsFeedback = false
    condition.broadcast()
    condition.unlock()
  }

  /// Stops the instance (cancelling its effects), destroys it and ends the store thread.
  /// Idempotent. Not on the store thread (it waits for that thread to end).
  @discardableResult
  public func stop() -> StopReport {
    precondition(!isOnStoreThread, "stop() waits for the store thread; call it from another thread")
    condition.lock()
    if !stopping && !stopped {
      stopping = true
      condition.broadcast()
    }
    while !stopped { condition.wait() }
    let report = StopReport(unapplied: unapplied, late: late, refused: refused, afterClosing: afterClosing)
    condition.unlock()
    threadExited.wait()
    return report
  }

  // MARK: - Callbacks from the plugin, any thread

  public func instanceEmitted(_ json: String, origin: EmitOrigin) {
    if let reason = EmittedAction.problem(in: json) {
      refuseEmit(json, reason: reason)
      return
    }
    enqueue(.action(json, origin == .feedback ? .feedback : .effect))
  }

  /// Emits refused so far because they were not actions.
  public var refusedEmits: Int {
    condition.lock()
    defer { condition.unlock() }
    return refused
  }

  /// Counts an emit that is not an action and reports it on the store thread, in order.
  private func refuseEmit(_ json: String, reason: String) {
    condition.lock()
    refused += 1
    condition.unlock()
    let failure = StoreFailure.emitRefused(feature: plugin.id, action: EmittedAction.excerpt(json), reason: reason)
    enqueue(.refusedEmit(HostError(failure)))
  }

  public func instanceEmittedStep(_ json: String) {
    enqueue(.step(json))
  }

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
    condition.lock()
    defer { condition.unlock() }
    guard !stopping && !stopped else { return 0 }
    let id = nextTimer
    nextTimer += 1
    let now = options.clock == .manual ? manualNow : DispatchTime.now().uptimeNanoseconds
    let (deadline, overflow) = now.addingReportingOverflow(nanoseconds)
    timers[id] = Timer(deadline: overflow ? .max : deadline, actions: list.map { $0.serialized() }, source: source)
    effectsInFlight += 1
    if options.clock == .real {
      timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(nanoseconds, UInt64(Int.max))))) { [weak self] in
        self?.fire([id])
      }
    }
    return id
  }

  /// Whether timer `id` has neither fired nor been cancelled.
  public func instanceTimerPending(_ id: UInt64) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return timers[id] != nil
  }

  public func instanceCancelledTimer(_ id: UInt64) {
    condition.lock()
    defer { condition.unlock() }
    guard timers.removeValue(forKey: id) != nil else { return }
    effectsInFlight = max(0, effectsInFlight - 1)
    condition.broadcast()
  }

  /// Moves a manual clock forward: the timers due by then fire, in deadline order (then the
  /// order they were scheduled), their actions queued as emitted. Wait with `waitUntilIdle` for
  /// them to be applied.
  public func advanceClock(by duration: Duration) {
    let nanoseconds =
      UInt64(duration.components.seconds) * 1_000_000_000
      + UInt64(duration.components.attoseconds / 1_000_000_000)
    condition.lock()
    manualNow += nanoseconds
    let due = timers.filter { $0.value.deadline <= manualNow }.sorted {
      ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
    }.map(\.key)
    condition.unlock()
    fire(due)
  }

  /// Timers not yet fired or cancelled.
  public var pendingTimers: Int {
    condition.lock()
    defer { condition.unlock() }
    return timers.count
  }

  private func fire(_ ids: [UInt64]) {
    condition.lock()
    defer { condition.unlock() }
    for id in ids {
      guard let timer = timers.removeValue(forKey: id) else { continue }
      effectsInFlight = max(0, effectsInFlight - 1)
      if stopping || stopped {
        unapplied += timer.actions.count
        continue
      }
      queue.append(contentsOf: timer.actions.map { .action($0, timer.source) })
    }
    condition.broadcast()
  }

  public func instanceLogged(level: LogLevel, message: String) {
    observer(.log(level: level, message: message))
  }

  public func instanceEffectBegan() {
    condition.lock()
    effectsInFlight += 1
    condition.unlock()
  }

  public func instanceEffectEnded() {
    condition.lock()
    effectsInFlight = max(0, effectsInFlight - 1)
    condition.broadcast()
    condition.unlock()
  }

  // MARK: - The store thread

  private func enqueue(_ item: Item, waitsForRoom: Bool = false) {
    condition.lock()
    defer { condition.unlock() }
    if waitsForRoom { waitForRoom() }
    if stopped {
      // After a closing, typed lines are expected (a pipe reads ahead): not the plugin's fault.
      if case .action = item {
        if closedAfterLoss { afterClosing += 1 } else { late += 1 }
      }
      return
    }
    if stopping, case .action = item {
      unapplied += 1
      return
    }
    queue.append(item)
    condition.signal()
  }

  private func run() {
    condition.lock()
    storeThread = pthread_self()
    condition.unlock()
    var batch: [Item] = []
    while true {
      condition.lock()
      while !stopping && !hasRunnableItem {
        condition.wait()
      }
      if stopping {
        condition.unlock()
        break
      }
      if paused {
        batch = queue.filter(\.isJob)
        queue.removeAll(where: \.isJob)
      } else if holdsFeedback {
        batch = queue.filter { !$0.isFeedbackAction }
        queue.removeAll { !$0.isFeedbackAction }
      } else {
        swap(&batch, &queue)
      }
      processing = true
      feedbackInBatch = batch.contains(where: \.isFeedbackAction)
      // Senders held back by a full inbox may go on.
      if batch.count >= options.inboxCapacity { condition.broadcast() }
      condition.unlock()

      var index = 0
      while index < batch.count {
        let item = batch[index]
        let outcome: Outcome
        if case .action = item, let run = actionRun(in: batch, from: index) {
          let applied = apply(run, from: batch, at: index)
          outcome = applied.outcome
          index += applied.handled
        } else {
          outcome = process(item)
          // .again: the instance was lost before this item reached it; its successor takes it.
          if outcome != .again { index += 1 }
        }
        if outcome == .pause {
          condition.lock()
          queue.insert(contentsOf: batch[index...], at: 0)
          condition.unlock()
          break
        }
      }
      batch.removeAll(keepingCapacity: true)

      condition.lock()
      let idle = queue.isEmpty
      condition.unlock()
      if idle { renderIfStale() }

      condition.lock()
      processing = false
      feedbackInBatch = false
      condition.broadcast()
      condition.unlock()
    }
    finish()
  }

  /// What the loop does after an item: go on, put the rest back (paused, or closing), or take
  /// the same item again (a new instance replaced one lost before the item reached it).
  enum Outcome { case next, pause, again }

  func process(_ item: Item) -> Outcome {
    switch item {
    case .step(let json):
      observer(.step(json))
      return .next
    case .refusedEmit(let error):
      observer(.emitRefused(error))
      return .next
    case .job(let body):
      // A job may show the state (`:state`): what it shows must be on disk.
      commitJournal()
      return runJob(body)
    case .action(let json, let source, let inputLine):
      let outcome = dispatchOne(json, source: source, inputLine: inputLine)
      guard sendAlone > 0 else { return outcome }
      sendAlone -= 1
      // The last action sent again went through: the loss was none of theirs.
      if sendAlone == 0, outcome == .next, unattributedLoss != nil { return reportUnattributedLoss() }
      return outcome
    }
  }

  private func dispatchOne(_ json: String, source: ActionSource, inputLine: Int) -> Outcome {
    let result: Result<Bool, PluginCallError>
    do throws(PluginCallError) {
      result = .success(try instance.dispatch(json))
    } catch {
      result = .failure(error)
    }
    switch applied(json, source: source, inputLine: inputLine, result) {
    case .outcome(let outcome): return outcome
    case .lost(let loss, let call, let action, let attribution):
      guard attribution == .thisCall else {
        // The worker died before this action reached it: not its fault; its successor takes it.
        return instanceLost(loss, call: "", action: nil) == .next ? .again : .pause
      }
      return instanceLost(loss, call: call, action: action)
    }
  }

  /// Two or more actions in a row at `index` that can go to the instance together, keeping what
  /// one at a time would do: none past the one after which the journal wants a snapshot or the
  /// runaway guard pauses. Nil when only one can.
  private func actionRun(in batch: [Item], from index: Int) -> ActionRun? {
    guard options.batchesDispatches, sendAlone == 0 else { return nil }
    let limit = journal?.actionsBeforeSnapshot ?? .max
    var run = ActionRun()
    var feedbacks = feedbackRun
    for item in batch[index...] {
      guard run.count < limit, case .action(let json, let source, _) = item else { break }
      run.actions.append(json)
      run.sources.append(source)
      if source == .feedback {
        feedbacks += 1
        if feedbacks >= options.maxFeedbackSteps { break }
      } else if source != .effect {
        feedbacks = 0
      }
    }
    return run.count > 1 ? run : nil
  }

  /// Sends `run`, the actions of `batch` from `start` on, to the instance together, handling each
  /// result as `process` would; returns how many actions of the run were handled (fewer when the
  /// instance was lost: the rest go to its successor).
  private func apply(_ run: ActionRun, from batch: [Item], at start: Int) -> (outcome: Outcome, handled: Int) {
    var last = Applied.outcome(.next)
    var handled = 0
    instance.dispatch(run.actions) { result in
      // After a loss the remaining results are the lost instance's: not this store's to apply.
      if case .lost = last { return }
      // The run ends where a pause can come, so only its last result may say pause.
      // Only a refusal needs the input line: it is read from the batch, not carried in the run.
      var inputLine = 0
      if case .failure = result, case .action(_, _, let line) = batch[start + handled] { inputLine = line }
      last = applied(run.actions[handled], source: run.sources[handled], inputLine: inputLine, result)
      handled += 1
    }
    switch last {
    case .outcome(let outcome): return (outcome, handled)
    // Handled once the lost instance's call returned: restarting replaces that instance.
    case .lost(let loss, let call, let action, let attribution):
      guard attribution == .thisCall else {
        // Which unanswered action it ran is unknown: they go again, one at a time, so the one
        // that brings the instance down again is the one blamed.
        handled -= 1
        sendAlone = run.count - handled
        let call = attribution == .notThisCall ? "" : call
        return (instanceLost(loss, call: call, action: nil, reported: false), handled)
      }
      return (instanceLost(loss, call: call, action: action), handled)
    }
  }

  /// Actions in a row, with where each came from: two arrays, which the instance takes as they
  /// are (an array of pairs would be copied into one of strings, and destroyed element by
  /// element through the runtime's generic tuple witnesses).
  private struct ActionRun {
    var actions: [String] = []
    var sources: [ActionSource] = []
    var count: Int { actions.count }
  }

  /// What one action's dispatch led to.
  private enum Applied {
    case outcome(Outcome)
    /// The instance was lost: applying `action` (not applied), or after it (`action` nil).
    case lost(InstanceLoss, call: String, action: String?, LossAttribution)
  }

  /// What follows one action's dispatch: the journal, the observer, the runaway guard.
  private func applied(
    _ json: String, source: ActionSource, inputLine: Int = 0, _ result: Result<Bool, PluginCallError>
  ) -> Applied {
    switch result {
    case .success(let changed):
      appliedCount += 1
      var lost: (loss: InstanceLoss, call: String)?
      if let journal {
        do {
          appliedCount = try journal.recordApplied(action: json, source: source, instance: instance)
        } catch {
          if let loss = Self.lostInstance(error) { lost = loss } else { dropJournal(error) }
        }
      }
      if changed { viewIsStale = true }
      observer(.applied(sequence: appliedCount, action: json, source: source, changed: changed))
      // The action is applied and recorded; the instance was lost taking a snapshot after it.
      if let lost { return .lost(lost.loss, call: lost.call, action: nil, .thisCall) }
    case .failure(let error):
      if let loss = error.loss { return .lost(loss, call: error.call, action: json, error.attribution) }
      observer(.rejected(action: json, source: source, error: error, inputLine: inputLine == 0 ? nil : inputLine))
    }
    guard source == .feedback else {
      if source != .effect { feedbackRun = 0 }
      return .outcome(.next)
    }
    feedbackRun += 1
    guard feedbackRun >= options.maxFeedbackSteps else { return .outcome(.next) }
    feedbackRun = 0
    condition.lock()
    paused = true
    condition.unlock()
    renderIfStale()
    observer(.paused(HostError(StoreFailure.runaway(feature: plugin.id, steps: options.maxFeedbackSteps))))
    return .outcome(.pause)
  }

  /// Commits the journal. A failure is reported once and marks the views unsaved; every later
  /// commit (before each view, each job, and at stop) retries it, and the first that succeeds
  /// says so and lifts the mark. Nothing recorded meanwhile is dropped: it waits in memory.
  private func commitJournal() {
    guard let journal else { return }
    do {
      try journal.commit()
      condition.lock()
      let recovered = unsavedError != nil
      unsavedError = nil
      condition.unlock()
      if recovered {
        viewIsStale = true
        observer(.journalSaved)
      }
    } catch {
      condition.lock()
      let first = unsavedError == nil
      unsavedError = error
      condition.unlock()
      if first {
        viewIsStale = true
        observer(.journalUnsaved(error))
      }
    }
  }

  /// A line to show under the view while the journal cannot commit; nil when all is saved.
  /// Any thread.
  public var unsavedMark: String? {
    condition.lock()
    defer { condition.unlock() }
    return unsavedError.map { "(not saved: \($0.message); retrying at each change)" }
  }

  /// Stops journaling after an error, saying so once; the instance keeps running.
  func dropJournal(_ error: HostError) {
    journal?.close()
    journal = nil
    observer(.journalFailed(error))
  }

  func renderIfStale() {
    commitJournal()
    guard options.rendersViews, viewIsStale, !isLost else { return }
    viewIsStale = false
    let view: String
    do {
      view = try instance.render(renderHints)
    } catch {
      if let loss = error.loss, instanceLost(loss, call: error.call, action: nil) == .next { renderIfStale() }
      return
    }
    let shown = unsavedMark.map { view + "\n" + $0 } ?? view
    guard shown != lastView || redrawsUnchanged else { return }
    redrawsUnchanged = false
    lastView = shown
    observer(.viewChanged(shown))
  }

  private func finish() {
    // The last chance to save what waits in memory; a failure here is reported, not dropped.
    if unsavedMark != nil { commitJournal() }
    if unsavedMark != nil { observer(.journalFailed(HostError(StoreFailure.unsavedAtStop(feature: plugin.id)))) }
    journal?.close()
    journal = nil
    condition.lock()
    // Stopping cancels every timer.
    effectsInFlight = max(0, effectsInFlight - timers.count)
    timers.removeAll()
    condition.unlock()
    let retired: RetiredInstance
    if isLost {
      // The instance is gone: what was last drawn is all there is to show.
      retired = RetiredInstance(plugin: plugin, state: nil, view: lastView)
    } else {
      do {
        try instance.stop()
      } catch {
        // Stopping an instance that never started is fine; anything else is worth a line.
        if !error.isLifecycle {
          observer(.log(level: .warning, message: "stop failed: \(error)"))
        }
      }
      retired = RetiredInstance(plugin: plugin, state: try? instance.snapshot(), view: try? instance.render())
    }
    instance.destroy()
    // Jobs already waiting still get their answer (snapshot and render work after stop).
    while true {
      condition.lock()
      let left = queue
      queue.removeAll()
      if left.isEmpty {
        self.retired = retired
        // The thread ends now, and another thread may get its id.
        storeThread = nil
        // feature_abi.h: once stop returned, every effect still in flight counts as ended.
        effectsInFlight = 0
        stopped = true
        stopping = false
        condition.broadcast()
        condition.unlock()
        return
      }
      unapplied += left.filter(\.isAction).count
      condition.unlock()
      for case .job(let body) in left { body(retired) }
    }
  }
}

extension Store.Item {
  fileprivate var isAction: Bool {
    if case .action = self { return true }
    return false
  }

  fileprivate var isJob: Bool {
    if case .job = self { return true }
    return false
  }

  fileprivate var isFeedbackAction: Bool {
    if case .action(_, .feedback, _) = self { return true }
    return false
  }
}

/// The target an instance calls back: forwards to its store while the store lives. The store
/// holds the relay; the relay holds the store weakly, so an instance never keeps its store alive.
final class CallbackRelay: InstanceCallbackTarget {
  private struct WeakStore { weak var store: Store? }
  private let reference = Mutex(WeakStore())

  var store: Store? {
    get { reference.withLock { $0.store } }
    set { reference.withLock { $0.store = newValue } }
  }

  func instanceEmitted(_ json: String, origin: EmitOrigin) { store?.instanceEmitted(json, origin: origin) }
  func instanceLogged(level: LogLevel, message: String) { store?.instanceLogged(level: level, message: message) }
  func instanceEffectBegan() { store?.instanceEffectBegan() }
  func instanceEffectEnded() { store?.instanceEffectEnded() }
  func instanceEmittedStep(_ json: String) { store?.instanceEmittedStep(json) }
  func instanceScheduled(after nanoseconds: UInt64, actions: String, origin: EmitOrigin) -> UInt64 {
    store?.instanceScheduled(after: nanoseconds, actions: actions, origin: origin) ?? 0
  }
  func instanceCancelledTimer(_ id: UInt64) { store?.instanceCancelledTimer(id) }
  func instanceTimerPending(_ id: UInt64) -> Bool { store?.instanceTimerPending(id) ?? false }
}
