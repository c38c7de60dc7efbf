/// What a store does when its instance is lost (a worker crashed, exited or stopped answering).
///
/// The call that lost it is not applied and not journaled as applied; the journal records the
/// crash. Then, as `RecoveryPolicy` decides: a new instance from the same factory and config,
/// restored to the journal's last state (its last snapshot or travel plus the actions after it),
/// started, sent `restored`, and the queue goes on; or, after too many crashes (or with no
/// journal to restore from: a store without one cannot rebuild its state), the store closes: it
/// reports `closed` and stops by itself. Everything here runs on the store thread, and only
/// after a call failed with a `loss`: the in-process path pays nothing for it.
extension Store {
  /// Handles the loss of the instance during `call` (empty: between calls), applying `action`
  /// (nil: none). Returns `.next` when a new instance took over, `.pause` when the store is
  /// closing. Unless `reported`, the loss is neither reported nor counted now: the actions it
  /// may have been running go again one at a time (`sendAlone`), and it is reported after them
  /// unless one of them is lost again and blamed.
  func instanceLost(_ loss: InstanceLoss, call: String, action: String?, reported: Bool = true) -> Outcome {
    assertOnStoreThread()
    var loss = loss
    var call = call
    var action = action
    var reported = reported
    if reported {
      // A loss blamed on an action explains an earlier unblamed one; another unblamed one
      // does not, and that is reported first.
      if action == nil, let earlier = unattributedLoss { reportDeferredLoss(earlier, restarted: true) }
      unattributedLoss = nil
      sendAlone = 0
    } else {
      unattributedLoss = (loss, call, nil)
    }
    condition.lock()
    interruptible = nil
    condition.unlock()
    while true {
      instance.destroy()
      endEffectsOfLostInstance()
      if reported { observer(.instanceLost(loss, call: call, action: action)) }
      if let journal {
        do {
          try journal.recordCrash(call: call, action: action, loss: loss)
        } catch {
          dropJournal(error)
        }
      }
      if reported, case .close(let crashes) = recovery.crashed() {
        return close(StoreFailure.crashedTooOften(feature: plugin.id, crashes: crashes, window: recovery.window))
      }
      guard let journal else {
        return close(StoreFailure.notRestarted(feature: plugin.id, reason: "it keeps no journal to restore from"))
      }
      switch restart(from: journal) {
      case .started(let fresh):
        instance = fresh
        condition.lock()
        interruptible = fresh as? any InterruptibleInstance
        condition.unlock()
        // Redraw even an unchanged view: the error lines came after the last one.
        redrawsUnchanged = true
        viewIsStale = true
        if reported {
          observer(.instanceRestarted(sequence: journal.lastSequence))
        } else {
          unattributedLoss?.restartedAt = journal.lastSequence
        }
        // `restored` comes before anything queued behind the lost call.
        var outcome: Outcome
        repeat { outcome = process(.action(#"{"type":"restored"}"#, .lifecycle)) } while outcome == .again
        return outcome
      case .lost(let fresh, let error):
        // The new instance was lost too: another crash, counted as such.
        instance = fresh
        (loss, call, action) = (error.loss ?? loss, error.call, nil)
        if !reported, let earlier = unattributedLoss {
          // The restart was lost too: the first loss is reported now, then this one.
          reportDeferredLoss(earlier, restarted: false)
          reported = true
        }
      case .refused(let error):
        return close(StoreFailure.notRestarted(feature: plugin.id, reason: error.message))
      }
    }
  }

  /// Reports the loss deferred by `instanceLost(reported: false)` once the actions sent again
  /// went through without blaming one: the worker died of something else (killed, or a fault
  /// outside any call). Counted as a crash.
  func reportUnattributedLoss() -> Outcome {
    guard let earlier = unattributedLoss else { return .next }
    reportDeferredLoss(earlier, restarted: true)
    if case .close(let crashes) = recovery.crashed() {
      return close(StoreFailure.crashedTooOften(feature: plugin.id, crashes: crashes, window: recovery.window))
    }
    return .next
  }

  private func reportDeferredLoss(_ earlier: (loss: InstanceLoss, call: String, restartedAt: Int?), restarted: Bool) {
    unattributedLoss = nil
    observer(.instanceLost(earlier.loss, call: earlier.call, action: nil))
    if restarted, let sequence = earlier.restartedAt { observer(.instanceRestarted(sequence: sequence)) }
  }

  private enum Restart {
    /// Restored and started; not yet sent `restored`.
    case started(any PluginInstance)
    /// The new instance was lost too, in `call` (and is to be destroyed).
    case lost(any PluginInstance, PluginCallError)
    /// Making or restoring the new instance failed otherwise.
    case refused(HostError)
  }

  /// A new instance, restored to the journal's last state and started; not yet sent `restored`.
  private func restart(from journal: any StoreJournal) -> Restart {
    let fresh: any PluginInstance
    let point: JournalRestorePoint
    do throws(HostError) {
      guard let found = try journal.restorePointForRestart() else {
        return .refused(HostError("its journal cannot rebuild the state"))
      }
      point = found
      fresh = try instances.makeInstance(of: plugin, config: config, target: relay)
    } catch {
      return .refused(error)
    }
    let watched = LossWatch(fresh)
    do throws(HostError) {
      try point.apply(to: watched)
      do throws(PluginCallError) {
        try fresh.start()
      } catch {
        if error.loss != nil { return .lost(fresh, error) }
        throw HostError(StoreFailure.startFailed(feature: plugin.id, error))
      }
    } catch {
      if let lost = watched.lost { return .lost(fresh, lost) }
      fresh.destroy()
      return .refused(error)
    }
    return .started(fresh)
  }

  /// The view of the journal's last state, drawn by a new instance that is never started; nil
  /// when that fails too.
  private func viewOfJournal(_ journal: any StoreJournal) -> String? {
    guard let point = try? journal.restorePointForRestart(),
      let fresh = try? instances.makeInstance(of: plugin, config: config, target: relay)
    else { return nil }
    defer { fresh.destroy() }
    do {
      try point.apply(to: fresh)
      return try fresh.render()
    } catch {
      return nil
    }
  }

  /// The lost instance's effects and timers end with it: nothing will report them ended.
  private func endEffectsOfLostInstance() {
    condition.lock()
    effectsInFlight = 0
    dropTimers()
    condition.broadcast()
    condition.unlock()
  }

  /// Closes the feature: reports why, and stops the store from its own thread (what is queued is
  /// counted as unapplied, as at `stop`).
  private func close(_ failure: StoreFailure) -> Outcome {
    // Nothing drawn yet (views are drawn at the end in a pipe): the last journaled state's view,
    // from an instance that only restores and draws, is the one to end on.
    if lastView == nil, let journal { lastView = viewOfJournal(journal) }
    isLost = true
    condition.lock()
    closedAfterLoss = true
    stopping = true
    condition.broadcast()
    condition.unlock()
    observer(.closed(HostError(failure)))
    return .pause
  }

  /// Runs a job, and handles a loss any of its calls met once the store has started.
  func runJob(_ body: (any PluginInstance) -> Void) -> Outcome {
    guard hasStarted else {
      body(instance)
      return .next
    }
    let watched = LossWatch(instance)
    body(watched)
    guard let lost = watched.lost, let loss = lost.loss else { return .next }
    return instanceLost(loss, call: lost.call, action: nil)
  }

  /// The loss inside a journal error when the journal lost the instance taking a snapshot.
  static func lostInstance(_ error: HostError) -> (loss: InstanceLoss, call: String)? {
    guard case .crashed(_, let loss, let call, _) = error.failure as? StoreFailure else { return nil }
    return (loss, call)
  }
}

/// Forwards to an instance and remembers the first call that lost it: how a job's or a
/// restart's calls (made by code that only sees errors) tell the store about a loss.
final class LossWatch: PluginInstance {
  private let base: any PluginInstance
  private(set) var lost: PluginCallError?

  init(_ base: any PluginInstance) { self.base = base }

  var plugin: LoadedPlugin { base.plugin }

  private func watch<T>(_ call: () throws(PluginCallError) -> T) throws(PluginCallError) -> T {
    do {
      return try call()
    } catch {
      if lost == nil, error.loss != nil { lost = error }
      throw error
    }
  }

  func start() throws(PluginCallError) { try watch { () throws(PluginCallError) in try base.start() } }
  func dispatch(_ json: String) throws(PluginCallError) -> Bool {
    try watch { () throws(PluginCallError) in try base.dispatch(json) }
  }
  func reduce(_ json: String) throws(PluginCallError) -> Bool {
    try watch { () throws(PluginCallError) in try base.reduce(json) }
  }
  func snapshot() throws(PluginCallError) -> String { try watch { () throws(PluginCallError) in try base.snapshot() } }
  func withSnapshot<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(PluginCallError) -> R {
    try watch { () throws(PluginCallError) in try base.withSnapshot(body) }
  }
  func restore(_ json: String) throws(PluginCallError) {
    try watch { () throws(PluginCallError) in try base.restore(json) }
  }
  func render() throws(PluginCallError) -> String { try watch { () throws(PluginCallError) in try base.render() } }
  func render(_ hints: RenderHints) throws(PluginCallError) -> String {
    try watch { () throws(PluginCallError) in try base.render(hints) }
  }
  func structuredView() throws(PluginCallError) -> String? {
    try watch { () throws(PluginCallError) in try base.structuredView() }
  }
  func stop() throws(PluginCallError) { try watch { () throws(PluginCallError) in try base.stop() } }
  func destroy() { base.destroy() }
}
