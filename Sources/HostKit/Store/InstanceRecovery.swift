/// What a store does when its instance is lost (a worker crashed, exited or stopped answering).
///
/// The call that lost it is not applied and not journaled as applied; the journal records the
/// crash. Then, as `RecoveryPolicy` decides: a new instance from the same factory and config,
/// restored to the journal's last state (its last snapshot or travel plus the actions after it),
/// started, sent `restored`, and the queue goes on; or, after too many crashes (or with no
/// journal to restore from: a store without one cannot rebuild its state), the store closes: it
/// reports `closed` and stops by itself. Everything here runs on the store thread, and only
/// after a call failed with a `loss`: the in-process path pays nothing for it.
///
/// Confined to the store thread (a part of `StoreLoop`).
final class InstanceRecovery {
  /// Counts crashes and decides restart or close.
  private var policy: RecoveryPolicy
  /// Actions still to send one at a time after a loss no single action could be blamed for.
  private(set) var sendAlone = 0
  /// That loss, reported once the actions sent again are through without blaming one of them,
  /// and the journal's sequence its successor was restored at.
  private var unattributed: (loss: InstanceLoss, call: String, restartedAt: Int?)?

  init(policy: RecoveryPolicy) {
    self.policy = policy
  }

  /// A run of actions sent together lost the instance, and which of the `unanswered` actions it
  /// was running is unknown: they go again one at a time, so the one that brings the instance
  /// down again is the one blamed; the loss is reported after them unless one is.
  func instanceLostInRun(_ loss: InstanceLoss, call: String, unanswered: Int, loop: StoreLoop) -> StoreLoop.Outcome {
    sendAlone = unanswered
    return instanceLost(loss, call: call, action: nil, reported: false, loop: loop)
  }

  /// One of the actions sent alone went through (`outcome`): after the last of them, the loss
  /// was none of theirs, and it is reported.
  func sentAlone(_ outcome: StoreLoop.Outcome, loop: StoreLoop) -> StoreLoop.Outcome {
    sendAlone -= 1
    guard sendAlone == 0, outcome == .next, let earlier = unattributed else { return outcome }
    // The worker died of something else (killed, or a fault outside any call): counted as a crash.
    report(earlier, restarted: true, loop: loop)
    if case .close(let crashes) = policy.crashed() {
      return close(.crashedTooOften(feature: loop.plugin.id, crashes: crashes, window: policy.window), loop: loop)
    }
    return .next
  }

  /// Handles the loss of the instance during `call` (empty: between calls), applying `action`
  /// (nil: none). Returns `.next` when a new instance took over, `.pause` when the store is
  /// closing. Unless `reported`, the loss is neither reported nor counted now (see
  /// `instanceLostInRun`).
  func instanceLost(
    _ loss: InstanceLoss, call: String, action: String?, reported: Bool = true, loop: StoreLoop
  ) -> StoreLoop.Outcome {
    loop.assertOnStoreThread()
    var (loss, call, action, reported) = (loss, call, action, reported)
    if reported {
      // A loss blamed on an action explains an earlier unblamed one; another unblamed one
      // does not, and that is reported first.
      if action == nil, let earlier = unattributed { report(earlier, restarted: true, loop: loop) }
      unattributed = nil
      sendAlone = 0
    } else {
      unattributed = (loss, call, nil)
    }
    _ = loop.instanceLeaving()
    while true {
      loop.destroyLostInstance()
      if reported { loop.observer(.instanceLost(loss, call: call, action: action)) }
      if let journal = loop.journal {
        do {
          try journal.recordCrash(call: call, action: action, loss: loss)
        } catch {
          loop.dropJournal(error)
        }
      }
      if reported, case .close(let crashes) = policy.crashed() {
        return close(.crashedTooOften(feature: loop.plugin.id, crashes: crashes, window: policy.window), loop: loop)
      }
      guard let journal = loop.journal else {
        return close(.notRestarted(feature: loop.plugin.id, reason: "it keeps no journal to restore from"), loop: loop)
      }
      switch restart(from: journal, loop: loop) {
      case .started(let fresh):
        loop.restarted(with: fresh)
        if reported {
          loop.observer(.instanceRestarted(sequence: journal.lastSequence))
        } else {
          unattributed?.restartedAt = journal.lastSequence
        }
        // `restored` comes before anything queued behind the lost call.
        var outcome: StoreLoop.Outcome
        repeat { outcome = loop.process(.action(#"{"type":"restored"}"#, .lifecycle)) } while outcome == .again
        return outcome
      case .lost(let fresh, let error):
        // The new instance was lost too: another crash, counted as such.
        loop.restartLost(fresh)
        (loss, call, action) = (error.loss ?? loss, error.call, nil)
        if !reported, let earlier = unattributed {
          // The restart was lost too: the first loss is reported now, then this one.
          report(earlier, restarted: false, loop: loop)
          reported = true
        }
      case .refused(let error):
        return close(.notRestarted(feature: loop.plugin.id, reason: error.message), loop: loop)
      }
    }
  }

  private func report(
    _ earlier: (loss: InstanceLoss, call: String, restartedAt: Int?), restarted: Bool, loop: StoreLoop
  ) {
    unattributed = nil
    loop.observer(.instanceLost(earlier.loss, call: earlier.call, action: nil))
    if restarted, let sequence = earlier.restartedAt { loop.observer(.instanceRestarted(sequence: sequence)) }
  }

  private func close(_ failure: StoreFailure, loop: StoreLoop) -> StoreLoop.Outcome {
    // Nothing drawn yet: the last journaled state's view, from an instance that only restores and
    // draws, is the one to end on.
    loop.closeAfterLoss(failure) { loop.journal.flatMap { Self.viewOfJournal($0, loop: loop) } }
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
  private func restart(from journal: any StoreJournal, loop: StoreLoop) -> Restart {
    let fresh: any PluginInstance
    let point: JournalRestorePoint
    do throws(HostError) {
      guard let found = try journal.restorePointForRestart() else {
        return .refused(HostError("its journal cannot rebuild the state"))
      }
      point = found
      fresh = try loop.maker.make()
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
        throw HostError(StoreFailure.startFailed(feature: loop.plugin.id, error))
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
  private static func viewOfJournal(_ journal: any StoreJournal, loop: StoreLoop) -> String? {
    guard let point = try? journal.restorePointForRestart(),
      let fresh = try? loop.maker.make()
    else { return nil }
    defer { fresh.destroy() }
    do {
      try point.apply(to: fresh)
      return try fresh.render()
    } catch {
      return nil
    }
  }
}
