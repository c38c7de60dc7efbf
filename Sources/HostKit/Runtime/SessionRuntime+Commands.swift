import Foundation

/// What a front end asks of the features it shows: actions, state, time travel, navigation.
/// Each answers with a value or throws a `HostError`; none prints.
extension SessionRuntime {
  /// Parses `line` against `feature`'s catalogue and sends it as a user action. Live, waits
  /// briefly so a quick action is drawn before the next input; otherwise, for a feature that can
  /// navigate, waits until it is idle so a step it emits at once moves before the next line.
  public func send(_ line: String, to feature: PresentedFeature) throws(HostError) {
    let store = feature.store
    store.send(try ActionLine.parse(line, manifest: feature.plugin.manifest), source: .user)
    if isLive {
      _ = store.waitUntilSettled(timeout: .milliseconds(250))
    } else if !feature.plugin.manifest.steps.isEmpty {
      // A feature that declares no step cannot navigate: its lines stream on without waiting.
      store.waitUntilIdle(timeout: settings.settleTimeout)
    }
    coordinator?.flush()
  }

  /// The state of `feature` as JSON, after everything queued before.
  public func state(of feature: PresentedFeature) throws(HostError) -> String {
    let id = feature.id
    let result = feature.store.perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }
    do {
      return try result.get()
    } catch {
      throw HostError(RuntimeFailure.snapshotFailed(feature: id, error))
    }
  }

  /// The view of `feature` now, if it renders one.
  public func view(of feature: PresentedFeature) -> String? {
    feature.store.perform { try? $0.render() }
  }

  /// The actions that made `feature`'s current state, oldest first.
  public func history(of feature: PresentedFeature) throws(HostError) -> [JournalAction] {
    try travel(feature, redraws: false) { journal, _ throws(HostError) in try journal.effectiveActions() }
  }

  /// Goes back to before the last action the user typed; returns the seq it is at.
  public func undo(_ feature: PresentedFeature) throws(HostError) -> Int {
    try travel(feature) { journal, instance throws(HostError) in try journal.undo(on: instance) }
  }

  /// Goes forward to where the last `undo` left; returns the seq it is at.
  public func redo(_ feature: PresentedFeature) throws(HostError) -> Int {
    try travel(feature) { journal, instance throws(HostError) in try journal.redo(on: instance) }
  }

  /// Goes to the state after action `seq`.
  public func goto(_ seq: Int, in feature: PresentedFeature) throws(HostError) {
    try travel(feature) { journal, instance throws(HostError) in try journal.goto(seq, on: instance) }
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

  /// Lifts the runaway guard's pause of `feature`.
  public func resume(_ feature: PresentedFeature) throws(HostError) {
    guard feature.store.isPaused else { throw HostError(RuntimeFailure.notPaused(feature: feature.id)) }
    feature.store.resume()
  }

  /// Waits (bounded) until the shown features settled and the navigation they caused is done;
  /// a feature that did not settle is reported.
  public func settle() {
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

  private func settle(_ feature: PresentedFeature) {
    let store = feature.store
    switch store.waitUntilSettled(timeout: settings.settleTimeout) {
    case .settled, .stopped:
      break
    case .paused:
      reporter.notice(.paused(feature: feature.id))
    case .timedOut:
      reporter.report(
        HostError(
          RuntimeFailure.notSettled(
            feature: feature.id, timeout: settings.settleTimeout, effects: store.effectsRunning)))
    }
  }

  /// Runs a journal operation on the feature's store thread, after everything queued before it;
  /// with `redraws`, the view is drawn again once the inbox drains.
  private func travel<T>(
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
