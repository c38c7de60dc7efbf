import FeatureJSON
import HostKit
import Synchronization

/// Runs exploration steps on one feature through the path `host run` takes (a `SessionRuntime`:
/// stores, journals, the chosen isolation), checking the contract after every step.
struct ExploreRun {
  let plugins: [PluginRecord]
  let id: String
  let config: String
  let settings: RunSettings

  /// How a run ended: the steps it ran, and the rule broken at the last of them, if any.
  struct Outcome {
    var steps: [ExploreStep]
    var violation: ContractViolation?
  }

  /// Runs the steps `next` gives (it gets the number of seqs journaled so far, for `:goto`) until
  /// it gives nil or a rule is broken; at the end, the journal must replay to the same state.
  func run(_ next: (_ seqs: Int) -> ExploreStep?) throws(HostError) -> Outcome {
    let reporter = ExploreReporter()
    let config = self.config
    let runtime = SessionRuntime(
      plugins: plugins, flow: .single(id), settings: settings, renderers: [], reporter: reporter
    ) { _, number in number == 1 ? config : "{}" }
    defer { runtime.close() }
    try runtime.open()
    guard let feature = runtime.focused else { throw HostError("\(id) could not be opened") }
    var steps: [ExploreStep] = []
    var state: String
    do throws(ContractViolation) {
      // The start settles first: a feedback loop (levels) moves the state on its own.
      _ = feature.store.waitUntilSettled(timeout: settings.settleTimeout)
      state = try runtime.probe(feature)
      while let step = next(steps.count + 1) {
        steps.append(step)
        state = try perform(step, on: feature, in: runtime, reporter: reporter, before: state)
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

  /// One step, then the checks after it; returns the state it left.
  private func perform(
    _ step: ExploreStep, on feature: PresentedFeature, in runtime: SessionRuntime, reporter: ExploreReporter,
    before: String
  ) throws(ContractViolation) -> String {
    switch step {
    case .action:
      do throws(HostError) {
        try runtime.send(step.line, to: feature)
      } catch {
        throw .failed("\(feature.id) could not take '\(step.line)': \(error.message)")
      }
    case .command(let text):
      // A travel the history cannot make (nothing to undo) is no failure of the feature.
      let words = text.split(separator: " ")
      switch words.first {
      case ":undo": _ = try? runtime.undo(feature)
      case ":redo": _ = try? runtime.redo(feature)
      case ":goto": if let seq = words.last.flatMap({ Int($0) }) { try? runtime.goto(seq, in: feature) }
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
    _ = feature.store.waitUntilSettled(timeout: settings.settleTimeout)
    var refused = false
    for report in reporter.take() {
      switch report.failure {
      case let failure as RuntimeFailure:
        if case .actionRefused = failure { refused = true } else { throw .failed(report.message) }
      case let failure as StoreFailure:
        switch failure {
        case .crashed, .crashedTooOften, .notRestarted: throw .crashed(report.message)
        default: throw .failed(report.message)
        }
      default:
        throw .failed(report.message)
      }
    }
    let after = try runtime.probe(feature)
    if refused && step.isAction && after != before {
      throw .refusalChangedState(action: step.json, before: before, after: after)
    }
    return after
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

  /// The reports since the last call.
  func take() -> [HostError] {
    reports.withLock { reports in
      defer { reports = [] }
      return reports
    }
  }
}
