import FeatureJSON
import HostKit
import Synchronization

/// Runs exploration steps on a flow (one feature alone, a flow file, the main flow) through the
/// path `host run` takes (a `SessionRuntime`: stores, journals, the chosen isolation), checking
/// the contract after every step.
struct ExploreRun {
  let plugins: [PluginRecord]
  let flow: Flow
  /// The config of the flow's first feature (`--config`).
  let config: String
  let settings: RunSettings

  /// Where a run stands when the next step is drawn.
  struct Position {
    /// The steps run so far, plus one: the seqs `:goto` may take, roughly.
    var seqs: Int
    /// The feature input goes to, and the features of the top frame.
    var focused: String
    var shown: [String]
    /// How many frames the stack holds.
    var depth: Int
  }

  /// How a run ended: the steps it ran, and the rule broken at the last of them, if any.
  struct Outcome {
    var steps: [ExploreStep]
    var violation: ContractViolation?
  }

  /// Runs the steps `next` gives until it gives nil or a rule is broken; at the end, the focused
  /// feature's journal must replay to its state.
  func run(_ next: (Position) -> ExploreStep?) throws(HostError) -> Outcome {
    let reporter = ExploreReporter()
    let config = self.config
    let plugins = self.plugins
    let runtime = SessionRuntime(
      plugins: plugins, flow: plugins.contains { $0.id == HomeMenu.id } ? HomeMenu.withPicks(flow) : flow,
      settings: settings, renderers: [], reporter: reporter
    ) { plugin, number in
      if plugin.id == HomeMenu.id { return HomeMenu.config(offering: plugins) }
      return number == 1 ? config : "{}"
    }
    defer { runtime.close() }
    try runtime.open()
    guard var feature = runtime.focused else { throw HostError("the flow '\(flow.name)' presented nothing") }
    var steps: [ExploreStep] = []
    do throws(ContractViolation) {
      // The start settles first: a feedback loop (levels) moves the state on its own.
      _ = feature.store.waitUntilSettled(timeout: settings.settleTimeout)
      var state = try runtime.probe(feature)
      while let step = next(position(runtime, feature: feature, seqs: steps.count + 1)) {
        steps.append(step)
        let before = (feature: ObjectIdentifier(feature), state: state)
        let refused = try perform(step, on: feature, in: runtime, reporter: reporter)
        guard let now = runtime.focused else { break }
        feature = now
        state = try runtime.probe(feature)
        if step.isAction && refused && before.feature == ObjectIdentifier(feature)
          && state != before.state
        {
          throw .refusalChangedState(action: step.json, before: before.state, after: state)
        }
      }
      try runtime.checkReplay(feature, state: state)
    } catch {
      return Outcome(steps: steps, violation: error)
    }
    return Outcome(steps: steps, violation: nil)
  }

  /// Runs `steps` as they are (a candidate while shrinking).
  func run(_ steps: [ExploreStep]) throws(HostError) -> Outcome {
    var left = steps[...]
    return try run { _ in left.popFirst() }
  }

  private func position(_ runtime: SessionRuntime, feature: PresentedFeature, seqs: Int) -> Position {
    let top = runtime.top
    return Position(
      seqs: seqs, focused: feature.id, shown: top?.features.map(\.id) ?? [feature.id],
      depth: runtime.stackDepth)
  }

  /// One step, then what the runtime reported of it: whether the feature refused it; throws a
  /// crash, a stopped feature, or any other failure reported.
  private func perform(
    _ step: ExploreStep, on feature: PresentedFeature, in runtime: SessionRuntime, reporter: ExploreReporter
  ) throws(ContractViolation) -> Bool {
    switch step {
    case .action:
      do throws(HostError) {
        let line = feature.id == HomeMenu.id ? HomeMenu.action(for: step.line) : step.line
        try runtime.send(line, to: feature)
      } catch {
        throw .failed("\(feature.id) could not take '\(step.line)': \(error.message)")
      }
    case .command(let text):
      // A travel or a move the stack cannot make (nothing to undo, nothing to go back to) is no
      // failure of a feature.
      let words = text.split(separator: " ").map(String.init)
      switch words.first {
      case ":undo": _ = try? runtime.undo(feature)
      case ":redo": _ = try? runtime.redo(feature)
      case ":goto": if let seq = words.last.flatMap({ Int($0) }) { try? runtime.goto(seq, in: feature) }
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
    // Effects and feedbacks end first, so a state change is the step's own, not a late effect's.
    for shown in runtime.top?.features ?? [feature] {
      _ = shown.store.waitUntilSettled(timeout: settings.settleTimeout)
    }
    return try reporter.check()
  }
}

/// Keeps what a runtime reports while exploring, for the step that caused it.
final class ExploreReporter: RuntimeReporter {
  private let reports = Mutex<[HostError]>([])

  func report(_ error: HostError) { reports.withLock { $0.append(error) } }

  func notice(_ notice: RuntimeNotice) {
    // Notes and a plugin's own log lines are no failure; a warning (a sandbox refusal) is.
    guard notice.level == .warning else { return }
    if case .pluginLog = notice { return }
    reports.withLock { $0.append(HostError(notice.description)) }
  }

  /// Takes the reports since the last call: returns whether one was a refusal; throws a crash
  /// or anything else.
  func check() throws(ContractViolation) -> Bool {
    let taken = reports.withLock { reports in
      defer { reports = [] }
      return reports
    }
    var refused = false
    for report in taken {
      switch report.failure {
      case let failure as RuntimeFailure:
        guard case .actionRefused(let feature, _, _, let error) = failure else { throw .failed(report.message) }
        // A started feature never answers "out of lifecycle order": something stopped it.
        if error.isLifecycle { throw .stopped(feature: feature, reason: error.description) }
        refused = true
      case let failure as StoreFailure:
        switch failure {
        case .crashed, .crashedTooOften, .notRestarted: throw .crashed(report.message)
        default: throw .failed(report.message)
        }
      default:
        throw .failed(report.message)
      }
    }
    return refused
  }
}
