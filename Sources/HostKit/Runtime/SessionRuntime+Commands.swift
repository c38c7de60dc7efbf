import Foundation

/// What a front end asks of the features it shows: actions, state, time travel, navigation.
/// Each answers with a value or throws a `HostError`; none prints.
extension SessionRuntime {
  /// Parses `line` against `feature`'s catalogue and sends it as a user action. Live, waits
  /// briefly so a quick action is drawn before the next input; otherwise, for a feature that can
  /// navigate, waits until it is idle so a step it emits at once moves before the next line.
  /// `inputLine` (from 1): the line of input it was read from, which a refusal carries.
  public func send(_ line: String, to feature: PresentedFeature, inputLine: Int? = nil) throws(HostError) {
    let store = feature.store
    store.send(try ActionLine.parse(line, manifest: manifest(of: feature)), source: .user, inputLine: inputLine)
    if isLive {
      _ = store.waitUntilSettled(timeout: .milliseconds(250))
    } else if !manifest(of: feature).steps.isEmpty {
      // A feature that declares no step cannot navigate: its lines stream on without waiting.
      store.waitUntilIdle(timeout: settings.settleTimeout)
    }
    coordinator?.flush()
  }

  /// Sends `action`, an action object `ActionLine.parse` made for `feature`, as a user action,
  /// from input that is not a terminal: a feature that declares no step streams on with no wait
  /// and no round trip to the navigation queue; one that does waits as `send(_:to:)` does.
  public func sendParsed(_ action: String, to feature: PresentedFeature, inputLine: Int? = nil) {
    let store = feature.store
    store.send(action, source: .user, inputLine: inputLine)
    guard !feature.plugin.manifest.steps.isEmpty else { return }
    store.waitUntilIdle(timeout: settings.settleTimeout)
    coordinator?.flush()
  }

  /// Waits (bounded) until every feature of the stack has handled what was sent to it so far:
  /// whatever those actions made it report (a refusal) has been reported. Then an error about a
  /// later line of input comes after it. Costs a lock per feature when nothing is queued.
  public func waitUntilInputHandled() {
    for feature in coordinator?.all ?? [] { feature.store.waitUntilIdle(timeout: settings.settleTimeout) }
  }

  /// The focused feature as navigation last left it, without waiting for navigation in flight:
  /// for input that is not a terminal, where only a feature with steps navigates, and
  /// `sendParsed` waits for it.
  public var focusedNow: PresentedFeature? { coordinator?.shownTop?.focus }

  /// Changes whenever `focusedNow` may have (0 once the session closed).
  public var focusedNowVersion: UInt64 { coordinator?.shownTopVersion ?? 0 }

  /// The state of `feature` as JSON, after everything queued before.
  public func state(of feature: PresentedFeature) throws(HostError) -> String {
    do {
      return try Self.askingSuccessor(feature) { instance throws(PluginCallError) in try instance.snapshot() }.get()
    } catch {
      throw HostError(RuntimeFailure.snapshotFailed(feature: feature.id, error))
    }
  }

  /// The whole view of `feature` now (`:view`: a long list in full where the plugin offers
  /// `fh.render_options/1`), if it renders one.
  public func view(of feature: PresentedFeature) -> String? {
    var hints = feature.store.renderHints
    hints.complete = true
    return try? Self.askingSuccessor(feature) { instance throws(PluginCallError) in try instance.render(hints) }.get()
  }

  /// The terminal changed size: the shown features are drawn again by the live renderers, with
  /// the new width in their hints. Any thread but a store's.
  public func redrawForNewSize() {
    guard let top = coordinator?.shownTop else { return }
    for renderer in renderers where renderer.followsViews {
      renderer.show(top.features, focus: top.focus, reason: .resized)
    }
  }

  /// `call` on `feature`'s instance, after everything queued before; once more when it met a lost
  /// worker, which the store reported and replaced: its successor answers.
  private static func askingSuccessor<T>(
    _ feature: PresentedFeature, _ call: @escaping (any PluginInstance) throws(PluginCallError) -> T
  ) -> Result<T, PluginCallError> {
    let ask = { feature.store.perform { instance in Result { () throws(PluginCallError) in try call(instance) } } }
    let first = ask()
    if case .failure(let error) = first, error.loss != nil { return ask() }
    return first
  }

  /// The actions that made `feature`'s current state, oldest first.
  public func history(of feature: PresentedFeature) throws(HostError) -> [JournalAction] {
    try travel(feature, redraws: false) { journal, _ throws(HostError) in try journal.effectiveActions() }
  }

  /// Every seq `goto` takes for `feature`, oldest first: the start, its actions (undone ones
  /// too) and its travels.
  public func seqs(of feature: PresentedFeature) throws(HostError) -> [JournalHistory.Entry] {
    try travel(feature, redraws: false) { journal, _ throws(HostError) in try journal.seqs() }
  }

  /// Goes back to before the last action the user typed; returns the seq it is at.
  /// `committing: false` leaves the travel's journal line to the store's next commit (before its
  /// next view or job, at its stop), as an action's is: for a caller that shows nothing of it
  /// meanwhile (exploring). Otherwise it is on disk when this returns.
  public func undo(_ feature: PresentedFeature, committing: Bool = true) throws(HostError) -> Int {
    try travel(feature) { journal, instance throws(HostError) in
      try journal.undo(on: instance, committing: committing)
    }
  }

  /// Goes forward to where the last `undo` left; returns the seq it is at. (`committing`: see `undo`.)
  public func redo(_ feature: PresentedFeature, committing: Bool = true) throws(HostError) -> Int {
    try travel(feature) { journal, instance throws(HostError) in
      try journal.redo(on: instance, committing: committing)
    }
  }

  /// Goes to the state after action `seq`. (`committing`: see `undo`.)
  public func goto(_ seq: Int, in feature: PresentedFeature, committing: Bool = true) throws(HostError) {
    try travel(feature) { journal, instance throws(HostError) in
      try journal.goto(seq, on: instance, committing: committing)
    }
  }

  /// Replaces `feature`'s state with the JSON in the file at `path` (as `save` writes it).
  public func load(from path: String, into feature: PresentedFeature) throws(HostError) {
    let state: String
    do {
      state = try RegularFile.readText(path)
    } catch {
      throw Self.runtimeFailure(error) { .unreadable(path: path, reason: $0) }
    }
    try travel(feature) { journal, instance throws(HostError) in
      try journal.load(state.trimmingWhitespace(), on: instance)
    }
  }

  /// Writes `feature`'s state as JSON to the file at `path`, whole or not at all. Refuses a path
  /// in the sessions folder and any session journal; replaces another file only with `replacing`.
  public func save(_ feature: PresentedFeature, to path: String, replacing: Bool = false) throws(HostError) {
    let state = try state(of: feature)
    let sessions = settings.sessions?.root ?? (try? SessionDirectory.default())?.root
    do {
      try RegularFile.write(state + "\n", to: path, replacing: replacing, guarding: sessions)
    } catch {
      throw Self.runtimeFailure(error) { .unwritable(path: path, reason: $0) }
    }
  }

  /// A failed system call as the runtime's own failure (`make` gets the system's reason); any
  /// other refusal as it is.
  private static func runtimeFailure(_ error: HostError, _ make: (String) -> RuntimeFailure) -> HostError {
    guard case .system(_, _, let code) = error.failure as? FileFailure else { return error }
    return HostError(make(String(cString: strerror(code))))
  }

  /// Lifts the pause of `feature`: the runaway guard's, or the one `pauseFeedbackLoops` made.
  public func resume(_ feature: PresentedFeature) throws(HostError) {
    guard feature.store.isPaused || feature.store.isFeedbackHeld else {
      throw HostError(RuntimeFailure.notPaused(feature: feature.id))
    }
    feature.store.resume()
  }

  /// Pauses the feedback loops running in the shown features (Ctrl-C during a regulation): their
  /// feedback actions wait, unapplied and unjournaled, until `resume`. Returns the ids of the
  /// features paused. Any thread.
  public func pauseFeedbackLoops() -> [String] {
    guard let top = coordinator?.shownTop else { return [] }
    return top.features.filter { $0.store.holdFeedback() }.map(\.id)
  }

  /// Waits (bounded) until the shown features settled and the navigation they caused is done;
  /// a feature that did not settle is reported.
  public func settle() {
    waitInterrupted.store(false, ordering: .sequentiallyConsistent)
    var shown: [ObjectIdentifier] = []
    // A step handled while settling may present new features: settle those too.
    for _ in 0..<8 {
      guard let coordinator, let top = coordinator.top else { return }
      let ids = top.features.map(ObjectIdentifier.init)
      if ids == shown { return }
      shown = ids
      for feature in top.features { settle(feature) }
      coordinator.flush()
    }
  }

  /// Presents feature `id` over the current one.
  public func open(_ id: String) throws(HostError) { try coordinator?.open(id) }

  /// Goes back to the frame before, stopping the top one: first everything sent to its features
  /// before (and the navigation it caused) is applied and journaled, so going back loses no line.
  public func back() throws(HostError) {
    if let top = coordinator?.top {
      for feature in top.features { feature.store.waitUntilIdle(timeout: settings.settleTimeout) }
    }
    coordinator?.flush()
    try coordinator?.back()
  }

  /// Sends input to feature `id` of the top frame.
  public func focus(_ id: String) throws(HostError) { try coordinator?.focus(id) }

  /// Ends the settle under way (Ctrl-C): it reports what it left running and returns. Any thread.
  public func interruptWait() { waitInterrupted.store(true, ordering: .sequentiallyConsistent) }

  /// Waits for `feature` to settle in short slices, so `interruptWait` ends the wait promptly.
  private func waitUntilSettled(_ feature: PresentedFeature) -> SettleResult? {
    let deadline = ContinuousClock.now + settings.settleTimeout
    while true {
      let left = deadline - ContinuousClock.now
      let result = feature.store.waitUntilSettled(timeout: min(left, .milliseconds(100)))
      if result != .timedOut || left <= .milliseconds(100) { return result }
      if waitInterrupted.exchange(false, ordering: .sequentiallyConsistent) { return nil }
    }
  }

  private func settle(_ feature: PresentedFeature) {
    let store = feature.store
    guard let result = waitUntilSettled(feature) else {
      reporter.notice(.waitInterrupted(feature: feature.id, effects: store.effectsRunning))
      return
    }
    switch result {
    case .settled, .stopped:
      break
    case .paused:
      reporter.notice(store.isFeedbackHeld ? .feedbackPaused(feature: feature.id) : .paused(feature: feature.id))
    case .timedOut:
      reporter.report(
        HostError(
          RuntimeFailure.notSettled(
            feature: feature.id, timeout: settings.settleTimeout, effects: store.effectsRunning)))
    }
  }

  /// Runs a journal operation on the feature's store thread, after everything queued before it;
  /// with `redraws`, the view is drawn again once the inbox drains.
  func travel<T>(
    _ feature: PresentedFeature, redraws: Bool = true,
    _ body: @escaping (SessionJournal, any PluginInstance) throws(HostError) -> T
  ) throws(HostError) -> T {
    guard let journal = (feature.context as? Context)?.journal else {
      throw HostError(RuntimeFailure.notLaunchedHere(feature: feature.id))
    }
    let store = feature.store
    let result: Result<T, HostError> = store.perform { instance in
      do throws(HostError) {
        let answer = try body(journal, instance)
        if redraws { store.invalidateView() }
        return .success(answer)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }
}
