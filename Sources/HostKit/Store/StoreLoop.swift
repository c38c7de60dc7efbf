/// The store thread's part of a store (swift-nio's internal state): the instance, the applied
/// count, the runaway guard's count, the view cache, the journal's commits and recovery. Only the
/// store thread touches it while it runs; `Store` makes it before, and reads it after, the thread.
///
/// Each turn takes a batch from the inbox (`StoreExternalState`), applies its items in order
/// (actions in runs where the instance takes several at once), then draws the view when the
/// inbox is empty.
// @unchecked: confined to the store thread (asserted at its entry points); made before it starts.
final class StoreLoop: @unchecked Sendable {
  let options: Store.Options
  let observer: @Sendable (StoreEvent) -> Void
  let external: StoreExternalState
  /// What makes an instance of the plugin (a restart, a reload) as the first was made.
  let maker: InstanceMaker
  private(set) var instance: any PluginInstance
  private var appliedCount: Int
  /// Feedback actions applied in a row, with no action from elsewhere (the runaway guard).
  private var feedbackRun = 0
  private var views = ViewCache()
  private var commits: JournalCommits
  private let recovery: InstanceRecovery
  /// The build the last reload moved to: what the next reload replaces, even when another
  /// feature's reload of the same file has not yet made it the current build.
  private var reloadedBuild: PluginBuild?

  init(
    maker: InstanceMaker, options: Store.Options, journal: (any StoreJournal)?, external: StoreExternalState,
    observer: @escaping @Sendable (StoreEvent) -> Void
  ) throws(HostError) {
    (self.maker, self.options, self.external, self.observer) = (maker, options, external, observer)
    commits = JournalCommits(journal)
    appliedCount = journal?.lastSequence ?? 0
    recovery = InstanceRecovery(policy: options.recovery)
    instance = try maker.make()
    external.interruptible(instance)
  }

  var plugin: LoadedPlugin { maker.plugin }

  var journal: (any StoreJournal)? { commits.journal }

  /// The hints views are drawn with now (none where `Options.renderHints` is nil).
  var renderHints: RenderHints { options.renderHints?() ?? RenderHints() }

  /// Traps (in debug builds) unless called on the store thread while it runs.
  func assertOnStoreThread(file: StaticString = #fileID, line: UInt = #line) {
    assert(
      external.isOnStoreThread, "a store-thread-only entry point was called from another thread", file: file, line: line
    )
  }

  // MARK: - The loop

  /// What the loop does after an item: go on, put the rest back (paused, or closing), or take
  /// the same item again (a new instance replaced one lost before the item reached it).
  enum Outcome { case next, pause, again }

  /// How long the store thread looks for the next item after a job before it sleeps: whoever
  /// waited for the job usually sends at once (an explorer's travel, then its next action).
  static let spinAfterJob = Duration.microseconds(30)

  /// The store thread's body: batches until the store closes, then `finish`.
  func run() {
    external.threadBegan()
    var batch: [InboxItem] = []
    while external.takeBatch(into: &batch) {
      var ranJob = false
      var index = 0
      while index < batch.count {
        let item = batch[index]
        let outcome: Outcome
        if item.isAction, options.batchesDispatches, recovery.sendAlone == 0,
          let run = ActionRun(
            in: batch, from: index, snapshotLimit: journal?.actionsBeforeSnapshot ?? .max,
            snapshotEvery: journal?.actionsBetweenSnapshots ?? 0, feedbackRun: feedbackRun,
            maxFeedbackSteps: options.maxFeedbackSteps)
        {
          let applied = apply(run, from: batch, at: index)
          outcome = applied.outcome
          index += applied.handled
        } else {
          if item.isJob { ranJob = true }
          outcome = process(item)
          // .again: the instance was lost before this item reached it; its successor takes it.
          if outcome != .again { index += 1 }
        }
        if outcome == .pause {
          external.putBack(batch[index...])
          break
        }
      }
      batch.removeAll(keepingCapacity: true)
      if external.isInboxEmpty { renderIfStale() }
      external.batchEnded()
      if ranJob { external.awaitArrival(for: Self.spinAfterJob) }
    }
    finish()
  }

  func process(_ item: InboxItem) -> Outcome {
    switch item {
    case .step(let json):
      observer(.step(json))
      return .next
    case .refusedEmit(let error):
      observer(.emitRefused(error))
      return .next
    case .job(let body, let commitsFirst):
      // A job may show the state (`:state`): what it shows must be on disk.
      if commitsFirst { commitJournal() }
      return runJob(body)
    case .action(let json, let source, let inputLine):
      let outcome = dispatchOne(json, source: source, inputLine: inputLine)
      guard recovery.sendAlone > 0 else { return outcome }
      return recovery.sentAlone(outcome, loop: self)
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
        return recovery.instanceLost(loss, call: "", action: nil, loop: self) == .next ? .again : .pause
      }
      return recovery.instanceLost(loss, call: call, action: action, loop: self)
    }
  }

  /// Sends `run`, the actions of `batch` from `start` on, to the instance together, handling each
  /// result as `process` would; returns how many actions of the run were handled (fewer when the
  /// instance was lost: the rest go to its successor).
  private func apply(_ run: ActionRun, from batch: [InboxItem], at start: Int) -> (outcome: Outcome, handled: Int) {
    var last = Applied.outcome(.next)
    var handled = 0
    // The snapshots the journal takes on the way (unless an action was refused) come in the same go.
    instance.dispatch(run.actions, snapshots: run.snapshots) { result in
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
        let call = attribution == .notThisCall ? "" : call
        let outcome = recovery.instanceLostInRun(loss, call: call, unanswered: run.count - handled, loop: self)
        return (outcome, handled)
      }
      return (recovery.instanceLost(loss, call: call, action: action, loop: self), handled)
    }
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
      if changed { views.invalidate() }
      observer(.applied(sequence: appliedCount, action: json, source: source, changed: changed))
      // The action is applied and recorded; the instance was lost taking a snapshot after it.
      if let lost { return .lost(lost.loss, call: lost.call, action: nil, .thisCall) }
    case .failure(let error):
      if let loss = error.loss { return .lost(loss, call: error.call, action: json, error.attribution) }
      if let journal {
        do { try journal.recordRefusal(action: json, source: source, error: "\(error)") } catch { dropJournal(error) }
      }
      observer(.rejected(action: json, source: source, error: error, inputLine: inputLine == 0 ? nil : inputLine))
    }
    guard source == .feedback else {
      if source != .effect { feedbackRun = 0 }
      return .outcome(.next)
    }
    feedbackRun += 1
    guard feedbackRun >= options.maxFeedbackSteps else { return .outcome(.next) }
    feedbackRun = 0
    external.pause()
    renderIfStale()
    observer(.paused(HostError(StoreFailure.runaway(feature: plugin.id, steps: options.maxFeedbackSteps))))
    return .outcome(.pause)
  }

  /// The loss inside a journal error when the journal lost the instance taking a snapshot.
  private static func lostInstance(_ error: HostError) -> (loss: InstanceLoss, call: String)? {
    guard case .crashed(_, let loss, let call, _) = error.failure as? StoreFailure else { return nil }
    return (loss, call)
  }

  // MARK: - Jobs, journal, views

  /// Runs a job, and handles a loss any of its calls met once the instance has started.
  private func runJob(_ body: (any PluginInstance) -> Void) -> Outcome {
    guard external.isRunning else {
      body(instance)
      return .next
    }
    let watched = LossWatch(instance)
    body(watched)
    guard let lost = watched.lost, let loss = lost.loss else { return .next }
    // A call that found the instance already gone did not lose it.
    return recovery.instanceLost(loss, call: lost.attribution == .notThisCall ? "" : lost.call, action: nil, loop: self)
  }

  /// Commits the journal. A failure is reported once and marks the views unsaved; every later
  /// commit (before each view, each job, and at stop) retries it, and the first that succeeds
  /// says so and lifts the mark. Nothing recorded meanwhile is dropped: it waits in memory.
  private func commitJournal() {
    switch commits.commit(external) {
    case .none: break
    case .saved:
      views.invalidate()
      observer(.journalSaved)
    case .unsaved(let error):
      views.invalidate()
      observer(.journalUnsaved(error))
    }
  }

  /// Stops journaling after an error, saying so once; the instance keeps running.
  func dropJournal(_ error: HostError) {
    commits.drop()
    observer(.journalFailed(error))
  }

  /// Marks the view as changed by a job (time travel): it is drawn once the inbox drains.
  func invalidateView() {
    assertOnStoreThread()
    views.invalidate()
  }

  /// Commits, then draws and reports the view when it may have changed and did.
  func renderIfStale() {
    commitJournal()
    guard options.rendersViews, views.isStale, !external.closedAfterLoss else { return }
    views.drawing()
    let view: String
    do {
      view = try instance.render(renderHints)
    } catch {
      if let loss = error.loss, recovery.instanceLost(loss, call: error.call, action: nil, loop: self) == .next {
        renderIfStale()
      }
      return
    }
    let shown = Store.unsavedMark(external.unsavedError).map { view + "\n" + $0 } ?? view
    if let changed = views.drawn(shown) { observer(.viewChanged(changed)) }
  }

  // MARK: - Replacing the instance (recovery and reload)

  /// The instance is lost or about to be replaced: its calls are no longer interrupted. Returns
  /// its effects in flight.
  func instanceLeaving() -> Int { external.instanceLeaving() }

  /// Destroys the lost instance; its effects and timers end with it.
  func destroyLostInstance() {
    instance.destroy()
    external.instanceReplaced(by: nil)
  }

  /// A restarted instance takes the place of the lost one. The view is drawn again even if
  /// unchanged: error lines came after it.
  func restarted(with fresh: any PluginInstance) {
    instance = fresh
    // The lost instance's effects ended when it was destroyed; the new one's, if its start began
    // any, are its own.
    external.interruptible(fresh)
    views.redraw()
  }

  /// The instance made to replace a lost one was lost too: it is the one destroyed next.
  func restartLost(_ fresh: any PluginInstance) {
    instance = fresh
  }

  /// A reload replaced the (stopped) instance with `fresh`, of `build`; the old one's effects
  /// and timers end with it.
  func reloaded(to build: PluginBuild, instance fresh: any PluginInstance) {
    external.instanceReplaced(by: fresh)
    instance = fresh
    reloadedBuild = build
    views.redraw()
  }

  /// The build to name as the one a reload replaces.
  func buildReplaced(default previous: PluginBuild) -> PluginBuild { reloadedBuild ?? previous }

  /// Closes the feature after a loss with nothing to replace the instance: reports why, and the
  /// store stops by itself (what is queued is counted as unapplied, as at `stop`). `lastView`:
  /// the view to end on when none was drawn yet (views are drawn at the end in a pipe).
  func closeAfterLoss(_ failure: StoreFailure, lastView: () -> String?) -> Outcome {
    views.endOn(lastView)
    external.lost()
    observer(.closed(HostError(failure)))
    return .pause
  }

  // MARK: - The end

  /// Stops and destroys the instance, and answers the jobs still queued from what it left.
  private func finish() {
    // The last chance to save what waits in memory; a failure here is reported, not dropped.
    if external.unsavedError != nil { commitJournal() }
    if external.unsavedError != nil {
      observer(.journalFailed(HostError(StoreFailure.unsavedAtStop(feature: plugin.id))))
    }
    commits.drop()
    // Stopping cancels every timer.
    external.cancelTimersAtClose()
    let retired: RetiredInstance
    if external.closedAfterLoss {
      // The instance is gone: what was last drawn is all there is to show.
      retired = RetiredInstance(plugin: plugin, state: nil, view: views.last)
    } else {
      do {
        try instance.stop()
      } catch {
        // Stopping an instance that never started is fine; anything else is worth a line.
        if !error.isLifecycle {
          observer(.log(level: .warning, message: "stop failed: \(error)"))
        }
      }
      // Both asked in one batch; each answer stands alone, as with one call each.
      var answers: [String?] = []
      instance.perform([.snapshot, .render]) { result in answers.append(try? result.get().text) }
      let (state, view) = answers.count == 2 ? (answers[0], answers[1]) : (nil, nil)
      retired = RetiredInstance(plugin: plugin, state: state, view: view)
    }
    instance.destroy()
    // Jobs already waiting still get their answer (snapshot and render work after stop).
    while let left = external.drainOrClose(retired: retired) {
      for case .job(let body, _) in left { body(retired) }
    }
  }
}
