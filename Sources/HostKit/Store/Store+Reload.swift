/// Hot reload: the store's instance is replaced by one of a new build, with the state moved over.
///
/// On the store thread, after everything queued before it: the running instance gives its state
/// (snapshot); an instance of the new build is made, restored to it and started; only then is
/// the old one stopped (its effects in flight and timers are cancelled) and destroyed, the new one
/// takes its place, the journal records the reload (and the state the new build holds), and the
/// new instance gets `restored` before anything queued after the reload. Any failure before the
/// swap destroys the new instance and leaves the old one running, its state untouched.
extension Store {
  /// Reloads the instance from `build`; `previous` is the build it replaces (for the note and
  /// the journal). `made` is an instance of `build` made beforehand (not started; made with this
  /// store's `config` and callback target), else one is made here. `announce` hears the result on
  /// the store thread before the view is drawn again (so a note about it comes before the view).
  @discardableResult
  public func reload(
    to build: PluginBuild, replacing previous: PluginBuild, made: (any PluginInstance)? = nil,
    announce: @escaping @Sendable (Result<ReloadReport, HostError>) -> Void = { _ in }
  ) -> Result<ReloadReport, HostError> {
    // @unchecked: handed to the store thread, which alone uses it from then on.
    struct Made: @unchecked Sendable { let instance: (any PluginInstance)? }
    let made = Made(instance: made)
    return perform { watched in
      let swapped = self.swapInstance(to: build, previous: previous, made: made.instance, running: watched)
      announce(swapped.map(\.report))
      guard case .success(let swap) = swapped else { return swapped.map(\.report) }
      // `restored` comes before anything queued behind the reload; then the view, drawn before
      // the old instance is destroyed (a worker's end is waited for): it is not on the way.
      _ = self.process(.action(#"{"type":"restored"}"#, .lifecycle))
      self.renderIfStale()
      swap.old.destroy()
      return .success(swap.report)
    }
  }

  private func swapInstance(
    to build: PluginBuild, previous: PluginBuild, made: (any PluginInstance)?, running: any PluginInstance
  ) -> Result<Swap, HostError> {
    let id = plugin.id
    // Once the store has stopped, `perform` runs this off the store thread, on the retired instance.
    guard isOnStoreThread, hasStarted, !isLost, !isClosed else {
      made?.destroy()
      return .failure(HostError(ReloadFailure.notRunning(feature: id)))
    }
    let old = instance
    let previous = reloadedBuild ?? previous
    let version = build.version
    let state: String
    do throws(PluginCallError) {
      // Through `running`: a loss here is a crash the store recovers from, as for any job.
      state = try running.snapshot()
    } catch {
      made?.destroy()
      return .failure(HostError(ReloadFailure.snapshotFailed(feature: id, error)))
    }
    let fresh: any PluginInstance
    do throws(HostError) {
      if let made {
        fresh = made
      } else {
        fresh = try instances.makeInstance(of: build.plugin, config: config, target: relay)
      }
    } catch {
      return .failure(HostError(ReloadFailure.createFailed(feature: id, version: version, reason: error.message)))
    }
    do throws(PluginCallError) {
      try fresh.restore(state)
    } catch {
      fresh.destroy()
      return .failure(HostError(ReloadFailure.stateRefused(feature: id, version: version, error)))
    }
    do throws(PluginCallError) {
      try fresh.start()
    } catch {
      fresh.destroy()
      return .failure(HostError(ReloadFailure.startFailed(feature: id, version: version, error)))
    }
    // The new instance runs: stop the old one, whose effects and timers end with it.
    condition.lock()
    let cancelled = effectsInFlight
    interruptible = nil
    condition.unlock()
    do throws(PluginCallError) {
      try old.stop()
    } catch {
      if !error.isLifecycle && error.loss == nil {
        observer(.log(level: .warning, message: "stop failed while reloading: \(error)"))
      }
    }
    condition.lock()
    effectsInFlight = 0
    dropTimers()
    instance = fresh
    interruptible = fresh as? any InterruptibleInstance
    condition.broadcast()
    condition.unlock()
    reloadedBuild = build
    let report = ReloadReport(
      feature: id, from: previous.version, to: version, cancelledEffects: cancelled,
      sequence: journal?.lastSequence ?? 0)
    if let journal {
      do throws(HostError) {
        let kept: String
        do throws(PluginCallError) {
          kept = try fresh.snapshot()
        } catch {
          throw HostError(JournalFailure.snapshotFailed(feature: id, forJournal: true, detail: "\(error)"))
        }
        try journal.recordReload(
          JournalReload(
            seq: journal.lastSequence, feature: id,
            from: .init(version: report.from, hash: previous.hash), to: .init(version: version, hash: build.hash)),
          state: kept)
      } catch {
        dropJournal(error)
      }
    }
    // Draw the view again even when it did not change: the note about the reload came after it.
    redrawsUnchanged = true
    viewIsStale = true
    return .success(Swap(report: report, old: old))
  }

  /// A reload done but for destroying the old instance, which is stopped.
  private struct Swap {
    let report: ReloadReport
    let old: any PluginInstance
  }
}

/// What a reload did.
public struct ReloadReport: Sendable, Equatable {
  public let feature: String
  /// The version that ran before, and the new build's.
  public let from: String
  public let to: String
  /// Effects and timers of the old instance that were in flight and were cancelled.
  public let cancelledEffects: Int
  /// The seq the reload happened at.
  public let sequence: Int

  public init(feature: String, from: String, to: String, cancelledEffects: Int, sequence: Int) {
    self.feature = feature
    self.from = from
    self.to = to
    self.cancelledEffects = cancelledEffects
    self.sequence = sequence
  }
}
