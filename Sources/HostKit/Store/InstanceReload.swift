/// Hot reload: a store's instance is replaced by one of a new build, with the state moved over.
///
/// On the store thread, after everything queued before it: the running instance gives its state
/// (snapshot); an instance of the new build is made, restored to it and started; only then is
/// the old one stopped (its effects in flight and timers are cancelled) and destroyed, the new one
/// takes its place, the journal records the reload (and the state the new build holds), and the
/// new instance gets `restored` before anything queued after the reload. Any failure before the
/// swap destroys the new instance and leaves the old one running, its state untouched.
struct InstanceReload {
  let loop: StoreLoop
  let build: PluginBuild
  let previous: PluginBuild
  /// An instance of `build` made beforehand (not started), else one is made here.
  let made: (any PluginInstance)?

  /// Reloads; `running` is the instance as the job sees it (a loss in its calls is a crash the
  /// store recovers from). `announce` hears the result before the view is drawn again.
  func run(
    running: any PluginInstance, onStoreThread: Bool,
    announce: (Result<ReloadReport, HostError>) -> Void
  ) -> Result<ReloadReport, HostError> {
    let swapped = swap(running: running, onStoreThread: onStoreThread)
    announce(swapped.map(\.report))
    guard case .success(let swap) = swapped else { return swapped.map(\.report) }
    // `restored` comes before anything queued behind the reload; then the view, drawn before
    // the old instance is destroyed (a worker's end is waited for): it is not on the way.
    _ = loop.process(.action(#"{"type":"restored"}"#, .lifecycle))
    loop.renderIfStale()
    swap.old.destroy()
    return .success(swap.report)
  }

  /// A reload done but for destroying the old instance, which is stopped.
  private struct Swap {
    let report: ReloadReport
    let old: any PluginInstance
  }

  private func swap(running: any PluginInstance, onStoreThread: Bool) -> Result<Swap, HostError> {
    let id = loop.plugin.id
    // Once the store has stopped, the job runs off the store thread, on the retired instance.
    guard onStoreThread, loop.external.isRunning else {
      made?.destroy()
      return .failure(HostError(ReloadFailure.notRunning(feature: id)))
    }
    let old = loop.instance
    let previous = loop.buildReplaced(default: self.previous)
    let version = build.version
    let state: String
    do throws(PluginCallError) {
      state = try running.snapshot()
    } catch {
      made?.destroy()
      return .failure(HostError(ReloadFailure.snapshotFailed(feature: id, error)))
    }
    let fresh: any PluginInstance
    do throws(HostError) {
      if let made { fresh = made } else { fresh = try loop.maker.make(of: build.plugin) }
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
    let cancelled = loop.instanceLeaving()
    do throws(PluginCallError) {
      try old.stop()
    } catch {
      if !error.isLifecycle && error.loss == nil {
        loop.observer(.log(level: .warning, message: "stop failed while reloading: \(error)"))
      }
    }
    loop.reloaded(to: build, instance: fresh)
    let report = ReloadReport(
      feature: id, from: previous.version, to: version, cancelledEffects: cancelled,
      sequence: loop.journal?.lastSequence ?? 0)
    if let journal = loop.journal {
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
        loop.dropJournal(error)
      }
    }
    return .success(Swap(report: report, old: old))
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
