import FeatureJSON
import Foundation
import HostKit
import Testing

/// What a flow exploration's invariant looks at after each step: the stack and the state of
/// every live feature.
public struct FlowLook: Sendable {
  /// The navigation stack, bottom frame first.
  public let stack: [FlowFrame]
  /// The id of the feature input goes to.
  public let focused: String?
  /// The state of each live feature by id (the topmost one when an id is on the stack twice).
  public let states: [String: JSONValue]
}

extension FlowTestStore {
  /// Explores the flow as `host explore --flow` does, with the test's own invariant: `runs` runs
  /// of `steps` steps (seeded by `seed`), each in a fresh coordinator over the same plugins and
  /// configs, on the manual clock: the focused feature's actions drawn from its catalogue, and
  /// `:open`, `:back` and `:focus` between them. After every step the contract is checked (no
  /// crash or hang, a refusal changes nothing, a feature on show never answers as stopped,
  /// snapshot -> restore -> snapshot gives the same bytes, a clean view) and `invariant` must
  /// hold. The first failure is shrunk and recorded at the caller's line with its steps and seed.
  /// This store is left as it was.
  public func explore(
    runs: Int = 10, steps: Int = 100, seed: UInt64 = 1,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    invariant: @escaping @Sendable (FlowLook) -> Bool = { _ in true }
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let explorer = FlowExploration(flow: flow, plugins: plugins, settings: launcher.settings, invariant: invariant)
    guard let found = await offPool({ explorer.explore(runs: runs, steps: steps, seed: seed) }) else { return }
    let lines = found.steps.map(\.line)
    fail(
      "Exploring flow \(flow.name) (seed \(seed)) failed after \(lines.count) step(s): \(lines.joined(separator: ", "))",
      why: found.problem,
      help: "fix the feature, the flow or the invariant; explore(runs:steps:seed: \(seed)) draws the same steps again",
      at: location)
  }
}

/// Runs and shrinks explorations of a flow over bare stores on the manual clock (no journal, so
/// no `:undo` or `:goto`), through the real coordinator.
struct FlowExploration: Sendable {
  let flow: Flow
  let plugins: [LoadedPlugin]
  let settings: FlowLauncher.Settings
  let invariant: @Sendable (FlowLook) -> Bool

  /// The manual clock's ticks between two steps, at most, as `host explore` moves it.
  static let maxTicks = 16

  func explore(runs: Int, steps: Int, seed: UInt64) -> StoreExploration.Found? {
    let generator = FlowSteps(plugins: plugins.map(PluginRecord.init), navigates: true, events: [])
    // A call that hangs in process is shrunk in workers, as a feature's exploration does.
    var shrinkIn: FlowExploration? = self
    return StoreExploration.firstFailure(
      runs: runs, seed: seed, simpler: generator.simpler,
      attempt: { random in
        var left = steps
        let failure = run(grace: StoreExploration.grace(settings.timeout)) { position in
          guard left > 0 else { return nil }
          left -= 1
          return generator.next(using: &random, at: position)
        }
        if failure?.kind == StoreExploration.hang, settings.instances.runsPluginsHere {
          shrinkIn = StoreExploration.canShrinkInWorkers ? inWorkers : nil
        }
        return failure
      },
      rerun: { shrinkIn?.run($0) })
  }

  /// This exploration in workers that end a hang (`StoreExploration.hangEndingWorkers`).
  private var inWorkers: FlowExploration {
    var workers = settings
    (workers.instances, workers.timeout) = StoreExploration.hangEndingWorkers(timeout: settings.timeout)
    return FlowExploration(flow: flow, plugins: plugins, settings: workers, invariant: invariant)
  }

  /// Runs `steps` as they are (a candidate while shrinking).
  func run(_ steps: [ExploreStep]) -> StoreExploration.Failure? {
    var left = steps[...]
    return run { _ in left.popFirst() }
  }

  /// Runs the steps `next` draws in a fresh coordinator until it gives nil; the steps up to the
  /// first broken rule and why, or nil when every check held. `grace`: as a feature's
  /// exploration gives effects still in flight (`StoreExploration.grace`).
  func run(grace: Duration = .zero, _ next: (ExplorePosition) -> ExploreStep?) -> StoreExploration.Failure? {
    let launcher = FlowLauncher(settings: settings)
    let coordinator = Coordinator(
      flow: flow, plugins: plugins.map(PluginRecord.init), launcher: launcher, logsNavigation: false)
    launcher.locked { launcher.coordinator = coordinator }
    // Set when a call never returned in process: its thread cannot be ended, so the features
    // are stopped without waiting for it (the thread is left behind).
    var stuck = false
    defer {
      if stuck {
        let stopping = Stopping(coordinator: coordinator)
        DispatchQueue.global().async { stopping.coordinator.stopAll() }
      } else {
        coordinator.stopAll()
      }
    }
    var ran: [ExploreStep] = []
    func failure(_ kind: String, _ problem: String) -> StoreExploration.Failure {
      StoreExploration.Failure(steps: ran, kind: kind, problem: problem)
    }
    func settled() -> StoreExploration.Failure? {
      guard let problem = settle(launcher, grace: grace) else { return nil }
      guard let hung = problem.hung else { return failure("crash", problem.text) }
      stuck = true
      return failure(StoreExploration.hang, hung)
    }
    do throws(HostError) {
      try coordinator.start()
    } catch {
      return failure("error", "the flow did not start: \(error.message)")
    }
    var checked: [ObjectIdentifier: (user: Int, pauses: Int)] = [:]
    if let unsettled = settled() { return unsettled }
    while let top = coordinator.top,
      let step = next(
        ExplorePosition(
          seqs: ran.count + 1, focused: top.focus.id, shown: top.features.map(\.id), depth: coordinator.depth))
    {
      ran.append(step)
      perform(step, on: top.focus, in: coordinator)
      if let unsettled = settled() { return unsettled }
      if let violation = check(launcher, coordinator: coordinator, checked: &checked) {
        return failure(violation.kind, violation.description)
      }
      let look = FlowLook(
        stack: launcher.locked { launcher.stack }, focused: coordinator.top?.focus.id,
        states: launcher.locked {
          Dictionary(launcher.allLocked.filter { !$0.retired }.map { ($0.id, $0.state) }) { _, later in later }
        })
      if !invariant(look) {
        return failure("invariant", "the invariant does not hold for \(Self.describe(look))")
      }
    }
    return nil
  }

  /// An action typed into the focused feature, or a navigation. One the stack cannot make
  /// (nothing to go back to) is no failure of a feature.
  private func perform(_ step: ExploreStep, on feature: PresentedFeature, in coordinator: Coordinator) {
    switch step {
    case .action:
      guard let json = try? ActionLine.parse(step.line, manifest: feature.plugin.manifest) else { return }
      feature.store.send(json, source: .user)
    case .command(let text):
      let words = text.split(separator: " ").map(String.init)
      switch words.first {
      case ":open": if let id = words.last { try? coordinator.open(id) }
      case ":back": try? coordinator.back()
      case ":focus": if let id = words.last { try? coordinator.focus(id) }
      default: break
      }
    }
  }

  /// Waits until the flow is idle, moving the manual clock of each live feature a few ticks (a
  /// paced feature's regulation interleaves with the steps); why not, when a store did not (and,
  /// in process, when that store is stuck in a call, what that hang is).
  private func settle(_ launcher: FlowLauncher, grace: Duration) -> (text: String, hung: String?)? {
    launcher.waitUntilIdle()
    for record in launcher.live {
      let store = record.feature.store
      let settled = StoreExploration.settle(
        store, timeout: settings.timeout, grace: grace, maxTicks: Self.maxTicks, instances: settings.instances)
      guard !settled else { continue }
      let text = "\(record.id) did not settle within \(settings.timeout) (a hang?)"
      guard StoreExploration.isStuckInProcess(store, instances: settings.instances) else { return (text, nil) }
      return (text, "\(record.id) did not answer within \(settings.timeout) in process (a call that never returns)")
    }
    launcher.waitUntilIdle()
    return nil
  }

  /// A coordinator handed to another thread to stop its features there.
  // @unchecked: handed over once, used by that thread alone (this one no longer touches it).
  private struct Stopping: @unchecked Sendable {
    let coordinator: Coordinator
  }

  /// The contract on what the step left: each live feature's new user actions (a refusal
  /// changed nothing, as the state right before and after it shows; no feature on show answers
  /// as stopped), its lost instance, and the probe of each feature on show.
  private func check(
    _ launcher: FlowLauncher, coordinator: Coordinator, checked: inout [ObjectIdentifier: (user: Int, pauses: Int)]
  ) -> ContractViolation? {
    for record in launcher.live {
      let key = ObjectIdentifier(record)
      let seen = checked[key] ?? (0, 0)
      let (user, pauses) = launcher.locked { (Array(record.user[seen.user...]), Array(record.pauses[seen.pauses...])) }
      checked[key] = (seen.user + user.count, seen.pauses + pauses.count)
      if let pause = pauses.first {
        // A worker killed at the call timeout hung; any other loss is a crash.
        if let lost = launcher.locked({ record.lost }), case .unresponsive = lost.loss {
          return .hung("\(record.id) \(lost.loss)" + (lost.action.map { " applying \($0)" } ?? ""))
        }
        return .crashed("\(record.id): \(pause.message)")
      }
      for entry in user {
        guard let rejection = entry.rejection else { continue }
        if rejection.isLifecycle { return .stopped(feature: record.id, reason: rejection.description) }
        if entry.changed {
          return .refusalChangedState(
            action: entry.action, before: entry.before.serialized(), after: entry.after.serialized())
        }
      }
    }
    for feature in coordinator.top?.features ?? [] {
      if case .failure(let violation) = feature.store.perform({ SessionRuntime.probe($0, id: feature.id) }) {
        return violation
      }
    }
    return nil
  }

  private static func describe(_ look: FlowLook) -> String {
    let states = look.states.keys.sorted().map { "\($0): \(look.states[$0]?.serialized() ?? "")" }
    return "stack \(look.stack.line), " + states.joined(separator: ", ")
  }
}
