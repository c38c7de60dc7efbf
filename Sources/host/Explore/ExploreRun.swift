import FeatureJSON
import HostKit

/// Runs exploration steps on a flow (one feature alone, a flow file, the main flow) through the
/// path `host run` takes (a `SessionRuntime`: stores, journals, the chosen isolation), checking
/// the contract after every step.
struct ExploreRun {
  let plugins: [PluginRecord]
  let flow: Flow
  /// The config of the flow's first feature (`--config`).
  let config: String
  let settings: RunSettings
  /// In process: how long a call may run before it is a hang (`--call-timeout`; nil: as long as
  /// it takes), and what reports one: the steps up to the call that hung, and the violation.
  /// The hung thread cannot be stopped, so `onHang` never returns. In a worker, the call
  /// timeout ends the worker and the run reports the hang itself.
  var hangLimit: Duration?
  var onHang: (@Sendable (_ steps: [ExploreStep], _ violation: ContractViolation) -> Never)?

  typealias Position = ExplorePosition

  /// How a run ended: the steps it ran, and the rule broken at the last of them, if any.
  struct Outcome {
    var steps: [ExploreStep]
    var violation: ContractViolation?
    /// How often the manual clock moved to fire a paced feature's timers.
    var ticks = 0
  }

  /// Runs the steps `next` gives until it gives nil or a rule is broken; at the end, the focused
  /// feature's journal must replay to its state.
  func run(_ next: (Position) -> ExploreStep?) throws(HostError) -> Outcome {
    let reporter = ExploreReporter()
    // In process the stores probe each action themselves and actions stream, the new states
    // round-tripped here as they come; in a worker each step waits and is probed from here.
    let streams = settings.instances.runsPluginsHere
    let probes = ProbeListener(probes: streams)
    let config = self.config
    let plugins = self.plugins
    var settings = self.settings
    // The probe runs at each applied action: no later action may be in the instance already.
    settings.store.batchesDispatches = false
    let runtime = SessionRuntime(
      plugins: plugins, flow: plugins.contains { $0.id == HomeMenu.id } ? HomeMenu.withPicks(flow) : flow,
      settings: settings, renderers: [], listeners: [probes], reporter: reporter
    ) { plugin, number in
      if plugin.id == HomeMenu.id { return HomeMenu.config(offering: plugins) }
      return number == 1 ? config : "{}"
    }
    defer { runtime.close() }
    probes.attach(runtime)
    defer { probes.endChecks() }
    let watch = streams ? hangWatch(probes) : nil
    watch?.start()
    // Ended before the runtime closes (defers run last first).
    defer { watch?.end() }
    try runtime.open()
    guard var feature = runtime.focused else { throw HostError("the flow '\(flow.name)' presented nothing") }
    var steps: [ExploreStep] = []
    var ticks = 0
    var parsed = ParsedLines()
    var seen: Seen?
    /// The stores that have had a timer pending (paced features).
    var paced = Set<ObjectIdentifier>()
    /// The navigation's version when `feature` was read as the focus (nil: read it again).
    var focusVersion: UInt64?
    do throws(ContractViolation) {
      // The start settles first: a feedback loop (levels) moves the state on its own.
      ticks += try settle(runtime, watch: watch)
      for shown in runtime.top?.features ?? [] where shown.store.pendingTimers > 0 || ticks > 0 {
        paced.insert(ObjectIdentifier(shown.store))
      }
      probes.saw(try runtime.probe(feature, cache: probes.cache(for: feature)), of: feature)
      while let step = next(position(runtime, feature: feature, seqs: steps.count + 1, seen: &seen)) {
        steps.append(step)
        watch?.sending(step, to: feature)
        defer { watch?.moved() }
        if step.isAction && streams {
          // Streamed as a pipe streams it: the listener snapshots each action's state on the
          // store thread; the states are checked here while a travel waits for the store, or
          // now and then (a bound on those waiting).
          try send(step, to: feature, in: runtime, parsed: &parsed)
          if steps.count % Self.checksEvery == 0 || probes.isBacklogged { probes.checkPending() }
          // A paced feature's timers fire only as the clock moves: settle it as a person waits.
          // Once it has shown a timer, after every action: the clock then moves at the same
          // steps whatever the store's pace, so a seed reaches the same states.
          // (A store never busy has no timer: one atomic load, not the store's lock.)
          let store = feature.store
          if paced.contains(ObjectIdentifier(store)) || (store.hasBeenBusy && store.pendingTimers > 0) {
            paced.insert(ObjectIdentifier(store))
            ticks += try settle(runtime, watch: watch)
          }
        } else if step.isAction {
          // In a worker the store's effect count can lag the worker's effects, so a late effect's
          // action cannot be told from a refusal's change: the refusal check is made in process.
          try send(step, to: feature, in: runtime, parsed: &parsed)
          let alone = (seen?.position.shown.count ?? 1) == 1 && !paced.contains(ObjectIdentifier(feature.store))
          if alone, let probed = probeAtOnce(feature, cache: probes.cache(for: feature)) {
            if let violation = probes.violation { throw violation }
            _ = try probed.get()
          } else {
            ticks += try settle(runtime, watch: watch)
            if let violation = probes.violation { throw violation }
            _ = try runtime.probe(feature, cache: probes.cache(for: feature))
          }
        } else if streams, travelAtOnce(step, on: feature, in: runtime, probes: probes) {
          // Travelled and probed on the store thread, nothing being in flight there.
        } else {
          ticks += try settle(runtime, watch: watch)
          // The states reached so far, checked before a command changes what is on show.
          if streams { probes.checkPending() }
          try perform(step, on: feature, in: runtime)
          if Self.isTravel(step) { probes.tookStep() }
          if case .command(let text) = step, text.hasPrefix(":reload") { probes.rebuilt(feature) }
          ticks += try settle(runtime, watch: watch)
          if let now = runtime.focused { probes.saw(try runtime.probe(now, cache: probes.cache(for: now)), of: now) }
        }
        if let violation = probes.violation { throw violation }
        try reporter.check()
        if step.isAction && streams {
          // Where navigation last left it (sendParsed waited for any), read again only once it
          // published a change: the read retains what is shown, which the stores retain too.
          let version = runtime.focusedNowVersion
          if version != focusVersion {
            guard let now = runtime.focusedNow else { break }
            (feature, focusVersion) = (now, version)
          }
        } else {
          guard let now = runtime.focused else { break }
          (feature, focusVersion) = (now, nil)
        }
      }
      ticks += try settle(runtime, watch: watch)
      if streams { probes.checkPending() }
      if let violation = probes.violation { throw violation }
      try reporter.check()
      try runtime.checkReplay(feature, state: try runtime.probe(feature))
    } catch {
      // What the listener saw first comes first: a crash, then the closed feature it left. The
      // steps end with the action it broke on, not with what was streamed after it: the same seed
      // gives the same failing sequence however fast the store kept up. The states reached
      // before it are checked first: one of them may have broken a rule before.
      if streams { probes.checkPending() }
      guard let seen = probes.violation else { return Outcome(steps: steps, violation: error, ticks: ticks) }
      return Outcome(steps: Self.cut(steps, afterSteps: probes.stepsAtViolation), violation: seen, ticks: ticks)
    }
    return Outcome(steps: steps, violation: nil, ticks: ticks)
  }

  /// `steps` up to and including the `count`-th action or travel, the steps the stores count
  /// (`ProbeListener.steps`); all of them when there are fewer.
  static func cut(_ steps: [ExploreStep], afterSteps count: Int) -> [ExploreStep] {
    guard count > 0 else { return steps }
    var seen = 0
    for (index, step) in steps.enumerated() where step.isAction || isTravel(step) {
      seen += 1
      if seen == count { return Array(steps[...index]) }
    }
    return steps
  }

  /// Waits (bounded) until the features on show have applied what they were sent and their
  /// effects and feedbacks have ended.
  /// Paced features run on the manual clock: their timers fire at once, tick by tick.
  /// Returns the clock's ticks. A store still busy or with effects in flight at the settle
  /// timeout is a hang; in process, a call still running is `watch`'s to report (it ends the
  /// run), so this waits for it.
  @discardableResult
  private func settle(_ runtime: SessionRuntime, watch: HangWatch?) throws(ContractViolation) -> Int {
    var ticks = 0
    for shown in runtime.top?.features ?? [] {
      let settled = shown.store.settleMovingClock(timeout: settings.settleTimeout, maxTicks: Self.maxTicks)
      ticks += settled.ticks
      guard settled.result == .timedOut else { continue }
      if settings.instances.runsPluginsHere {
        // A call still running: the watch reports it past its limit, or it returns.
        while !shown.store.waitUntilIdle(timeout: watch?.limit ?? settings.settleTimeout) {}
        if shown.store.waitUntilSettled(timeout: .zero) != .timedOut { continue }
      }
      throw .hung(
        "\(shown.id) did not settle within \(settings.settleTimeout.seconds.formatted()) s "
          + "(\(shown.store.effectsRunning) effect\(shown.store.effectsRunning == 1 ? "" : "s") in flight)")
    }
    return ticks
  }

  /// In process, with a limit and someone to report to: the watch of this run's calls.
  private func hangWatch(_ probes: ProbeListener) -> HangWatch? {
    guard let limit = hangLimit, limit > .zero, let onHang else { return nil }
    let report: @Sendable ([ExploreStep], String) -> Never = { steps, feature in
      // The call that hung is a check's of the state those actions reached, or else the action
      // after those the stores took (or the probe after it).
      onHang(
        Self.cut(steps, afterSteps: probes.stepsInCheck ?? probes.steps + 1),
        .hung(
          "\(feature) did not return from a call within \(limit.seconds.formatted()) s "
            + "(in process, where its thread cannot be stopped)"))
    }
    return HangWatch(
      limit: limit, heard: { probes.heard }, checking: { probes.stepsInCheck != nil }, report: report)
  }

  /// The ticks of the manual clock between two steps, at most: a person types the next line
  /// while a regulation runs (levels 4,000 apart take 4,000 ticks), so its steps and the
  /// person's interleave, and no step waits for the whole loop.
  static let maxTicks = 16

  /// Sends an action step as typed (home's lines as the home menu reads them).
  /// Each line parsed once: the generator draws from a few hundred lines, and a pipe's word
  /// table keeps its parses the same way.
  private static let parsesKept = 4_096

  private func send(
    _ step: ExploreStep, to feature: PresentedFeature, in runtime: SessionRuntime, parsed: inout ParsedLines
  ) throws(ContractViolation) {
    let line = feature.id == HomeMenu.id ? HomeMenu.action(for: step.line) : step.line
    let action: String
    if let known = parsed.action(typed: line, into: feature.id) {
      action = known
    } else {
      do throws(HostError) {
        action = try ActionLine.parse(line, manifest: runtime.manifest(of: feature))
      } catch {
        throw .failed("\(feature.id) could not take '\(step.line)': \(error.message)")
      }
      parsed.keep(action, typed: line, into: feature.id, limit: Self.parsesKept)
    }
    // As a pipe sends a parsed line: a feature with steps waits for the navigation it causes.
    runtime.sendParsed(action, to: feature)
  }

  /// The actions parsed from the lines typed so far, by feature: the focused feature's table is
  /// found by comparing its id with the last one's, so a step hashes only its line.
  struct ParsedLines {
    private var featureID = ""
    private var lines: [String: String] = [:]
    private var others: [String: [String: String]] = [:]
    private var count = 0

    /// The action parsed from `line` typed into feature `id`, if it was parsed before.
    mutating func action(typed line: String, into id: String) -> String? {
      if id != featureID { switchTo(id) }
      return lines[line]
    }

    /// Keeps `action` as parsed from `line` typed into feature `id`; past `limit` lines in all,
    /// every table starts again.
    mutating func keep(_ action: String, typed line: String, into id: String, limit: Int) {
      if id != featureID { switchTo(id) }
      if count >= limit {
        (lines, others, count) = ([:], [:], 0)
      }
      lines[line] = action
      count += 1
    }

    private mutating func switchTo(_ id: String) {
      others[featureID] = lines
      lines = others.removeValue(forKey: id) ?? [:]
      featureID = id
    }
  }

  /// Runs `steps` as they are (a candidate while shrinking).
  func run(_ steps: [ExploreStep]) throws(HostError) -> Outcome {
    var left = steps[...]
    return try run { _ in left.popFirst() }
  }

  /// The position last read, and the navigation's version then.
  private typealias Seen = (version: UInt64, position: Position)

  /// Where the run stands. The stack is read again (two trips to the navigation queue) only
  /// once navigation has published a change since `seen`.
  private func position(_ runtime: SessionRuntime, feature: PresentedFeature, seqs: Int, seen: inout Seen?)
    -> Position
  {
    let version = runtime.focusedNowVersion
    if var known = seen?.position, seen?.version == version, known.focused == feature.id {
      known.seqs = seqs
      return known
    }
    let top = runtime.top
    let fresh = Position(
      seqs: seqs, focused: feature.id, shown: top?.features.map(\.id) ?? [feature.id],
      depth: runtime.stackDepth)
    seen = (version, fresh)
    return fresh
  }

  /// A travel (`:undo`, `:redo`, `:goto`) made on the store thread in one job, after the actions
  /// streamed before it, and probed there: no wait for the store to settle, no trip for the
  /// probe. False, having done nothing, for another command, or when something may be in flight
  /// there (an effect, a timer: what settling would wait for).
  ///
  /// A store that has never been busy (no effect, timer or pause so far) takes the travel in a
  /// job the run does not wait for: the actions after it stream on behind it, and what it
  /// reached is checked with the rest. One the actions before it make busy for the first time
  /// travels then as a person's `:undo` would, with its first effect in flight.
  private func travelAtOnce(
    _ step: ExploreStep, on feature: PresentedFeature, in runtime: SessionRuntime, probes: ProbeListener
  ) -> Bool {
    // Read here: the store thread has more to do than the run.
    guard let travel = Self.travel(of: step) else { return false }
    let store = feature.store
    if !store.hasBeenBusy {
      store.performLater { _ in
        self.travel(travel, on: feature, in: runtime)
        probes.travelled(feature)
      }
      return true
    }
    // Behind the actions streamed before it: spun for, not slept on (a wake-up is the store's).
    // Waiting, the run checks the states the store reaches meanwhile.
    let checks = { probes.checkNext() }
    return store.perform(spinning: .milliseconds(2), meanwhile: checks) { _ -> Bool in
      // A store stopped meanwhile runs this on the run's thread, under the lock the travel's own
      // `perform` takes: travelled (or not) as any other command, after this.
      guard store.isOnStoreThread, store.effectsRunning == 0, store.pendingTimers == 0, !store.isPaused else {
        return false
      }
      self.travel(travel, on: feature, in: runtime)
      // The state it reached is checked with the others.
      probes.travelled(feature)
      return true
    }
  }

  /// A travel step, as typed: `:undo`, `:redo`, `:goto SEQ` (nil: a seq that is no number).
  enum Travel {
    case undo, redo
    case goto(Int?)
  }

  /// The travel `step` is, if it is one.
  static func travel(of step: ExploreStep) -> Travel? {
    guard case .command(let text) = step else { return nil }
    if text == ":undo" { return .undo }
    if text == ":redo" { return .redo }
    guard text.hasPrefix(":goto ") else { return nil }
    return .goto(Int(text.dropFirst(":goto ".count)))
  }

  /// Whether `step` is a travel: it applies no action, and the stores count it as a step.
  static func isTravel(_ step: ExploreStep) -> Bool { travel(of: step) != nil }

  /// Streaming, the states reached are checked at least every so many steps (and sooner when
  /// they hold many bytes: `ProbeListener.isBacklogged`).
  private static let checksEvery = 256

  /// In a worker: the probe after an action sent, made by a job on the store thread once the
  /// action is applied, when the store is quiet there (nothing queued after it, no effect in
  /// flight, no timer, not paused), so settling would change nothing: one trip to the store
  /// thread instead of a settle and then the probe's. Nil, having probed nothing, otherwise.
  private func probeAtOnce(_ feature: PresentedFeature, cache: ProbeCache) -> Result<String, ContractViolation>? {
    let store = feature.store
    return store.perform { instance -> Result<String, ContractViolation>? in
      guard store.isQuiet else { return nil }
      return SessionRuntime.probeNoting(instance, feature: feature, cache: cache)
    }
  }

  /// A host command: a travel, a navigation or a reload. One the stack cannot make (nothing to
  /// undo, nothing to go back to) is no failure of a feature.
  private func perform(_ step: ExploreStep, on feature: PresentedFeature, in runtime: SessionRuntime)
    throws(ContractViolation)
  {
    guard case .command(let text) = step else { return }
    let words = text.split(separator: " ").map(String.init)
    switch words.first {
    case ":undo", ":redo", ":goto":
      if let travel = Self.travel(of: step) { self.travel(travel, on: feature, in: runtime) }
    case ":open": if let id = words.last { try? runtime.open(id) }
    case ":back": try? runtime.back()
    case ":focus": if let id = words.last { try? runtime.focus(id) }
    case ":reload":
      do throws(HostError) {
        try runtime.reload(feature)
      } catch {
        throw .failed("\(feature.id) could not be reloaded: \(error.message)")
      }
    default: break
    }
  }

  /// A travel; one the history cannot make (nothing to undo) is no failure of a feature. Its
  /// journal line is written with the actions after it (nothing of it is shown before).
  private func travel(_ travel: Travel, on feature: PresentedFeature, in runtime: SessionRuntime) {
    switch travel {
    case .undo: _ = try? runtime.undo(feature, committing: false)
    case .redo: _ = try? runtime.redo(feature, committing: false)
    case .goto(let seq?): try? runtime.goto(seq, in: feature, committing: false)
    case .goto(nil): break
    }
  }
}

/// Keeps what a runtime reports while exploring, for the step that caused it.
final class ExploreReporter: RuntimeReporter {
  // Locked, not Mutex: store threads report while the run takes, and ThreadSanitizer sees a
  // pthread mutex change hands (see Locked).
  private let reports = Locked<[HostError]>([])

  func report(_ error: HostError) { reports.withLock { $0.append(error) } }

  func notice(_ notice: RuntimeNotice) {
    // Notes and a plugin's own log lines are no failure; a warning (a journal lost) is. A sandbox
    // refusal is the system saying no (kittens' name lookup in a worker): the feature gets an
    // error, and what it makes of it (its error state, its view) is what the probe checks.
    guard notice.level == .warning else { return }
    switch notice {
    case .pluginLog, .sandboxRefused: return
    default: break
    }
    reports.withLock { $0.append(HostError(notice.description)) }
  }

  /// Takes the reports since the last call and throws a crash or any other failure; refusals
  /// are the feature's answer (the `ProbeListener` checks what they left).
  func check() throws(ContractViolation) {
    let taken = reports.withLock { reports in
      defer { reports = [] }
      return reports
    }
    for report in taken {
      switch report.failure {
      case let failure as RuntimeFailure:
        guard case .actionRefused = failure else { throw .failed(report.message) }
      case let failure as StoreFailure:
        switch failure {
        case .crashed(_, .unresponsive, _, _): throw .hung(report.message)
        case .crashed, .crashedTooOften, .notRestarted: throw .crashed(report.message)
        default: throw .failed(report.message)
        }
      default:
        throw .failed(report.message)
      }
    }
  }
}
