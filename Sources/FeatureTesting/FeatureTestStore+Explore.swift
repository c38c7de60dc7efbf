import FeatureJSON
import Foundation
import HostKit
import Testing

/// How a `FeatureTestStore` made its store, so `explore` can make fresh ones alike.
struct ExplorationSetup: Sendable {
  let config: String
  let maxFeedbackSteps: Int
  let clock: Store.Clock
  let instances: InstanceFactory
}

extension FeatureTestStore {
  /// Explores the feature as `host explore` does, with the test's own invariant: `runs` runs of
  /// `steps` actions drawn from its catalogue (seeded by `seed`), each run in a fresh instance
  /// made as this store's was. After every action the contract is checked (no crash, a refusal
  /// changes nothing, snapshot -> restore -> snapshot gives the same bytes, a clean view) and
  /// `invariant` must hold for the state. The first failure is shrunk to a short sequence and
  /// recorded at the caller's line with the steps and the seed. This store is left as it was.
  public func explore(
    runs: Int = 10, steps: Int = 100, seed: UInt64 = 1,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    invariant: @escaping @Sendable (JSONValue) -> Bool = { _ in true }
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let explorer = StoreExploration(plugin: plugin, setup: exploration, timeout: timeout, invariant: invariant)
    guard let found = await offPool({ explorer.explore(runs: runs, steps: steps, seed: seed) }) else { return }
    let actions = found.steps.map(\.line)
    Self.fail(
      "Exploring \(plugin.id) (seed \(seed)) failed after \(actions.count) action(s): \(actions.joined(separator: ", "))",
      why: found.problem,
      help: "fix the feature, or the invariant; explore(runs:steps:seed: \(seed)) draws the same sequences again",
      at: location)
  }
}

/// Runs and shrinks explorations of a plugin over bare stores (no journal, no host travels).
struct StoreExploration: Sendable {
  let plugin: LoadedPlugin
  let setup: ExplorationSetup
  let timeout: Duration
  let invariant: @Sendable (JSONValue) -> Bool
  /// The states probed already, over every run and shrink candidate (one plugin, one config).
  var cache = ProbeCache()

  /// A failing sequence, shrunk, and why it fails.
  struct Found: Sendable {
    var steps: [ExploreStep]
    var problem: String
  }

  func explore(runs: Int, steps: Int, seed: UInt64) -> Found? {
    let generator = StepGenerator(manifest: plugin.manifest, events: [])
    guard !generator.isEmpty else { return nil }
    // A call that hangs in process cannot be ended there (each rerun would leave a thread stuck
    // in it): that failure is shrunk in workers, whose call timeout ends the call, or not at all
    // where the host is not built.
    var shrinkIn: StoreExploration? = self
    return Self.firstFailure(
      runs: runs, seed: seed, simpler: generator.simpler,
      attempt: { random in
        let failure = run((0..<steps).map { generator.next(using: &random, seqs: $0 + 1) }, grace: Self.grace(timeout))
        if failure?.kind == Self.hang, setup.instances.runsPluginsHere {
          shrinkIn = Self.canShrinkInWorkers ? inWorkers : nil
        }
        return failure
      },
      rerun: { shrinkIn?.run($0) })
  }

  /// The kind of failure a call that never returns is.
  static let hang = ContractViolation.hung("").kind

  /// How much longer a run that is exploring (not a candidate being shrunk) waits for effects
  /// still in flight past the settle timeout, when no call is stuck: on a loaded machine an
  /// effect's thread may start late, and a slow effect is no hang. Once per failure found, where
  /// a candidate would pay it at every rerun. The settle budget of workers that end a hang.
  static func grace(_ timeout: Duration) -> Duration { hangEndingWorkers(timeout: timeout).settle }

  /// Settles `store` within `timeout` moving the manual clock up to `maxTicks`; with a `grace`,
  /// one whose effects are still in flight (no call stuck in process) gets that much longer, the
  /// clock moving only by the ticks left. Whether it settled.
  static func settle(
    _ store: Store, timeout: Duration, grace: Duration, maxTicks: Int, instances: InstanceFactory
  ) -> Bool {
    let first = store.settleMovingClock(timeout: timeout, maxTicks: maxTicks)
    guard first.result == .timedOut else { return true }
    guard grace > .zero, !isStuckInProcess(store, instances: instances) else { return false }
    return store.settleMovingClock(timeout: grace, maxTicks: max(0, maxTicks - first.ticks)).result != .timedOut
  }

  /// Whether the built host is there to run workers.
  static var canShrinkInWorkers: Bool { access(HostProcess.executable, X_OK) == 0 }

  /// Workers of the built host whose call timeout is `timeout`, the settle timeout of an
  /// exploration in process, and how long settling waits among them: longer, so that the call
  /// timeout ends a hung call first and the hang is seen as one.
  static func hangEndingWorkers(timeout: Duration) -> (instances: InstanceFactory, settle: Duration) {
    (.worker(executable: HostProcess.executable, callTimeout: timeout.seconds), timeout * 2 + .seconds(1))
  }

  /// Whether `store`, which did not settle, is stuck in a call that runs in process.
  static func isStuckInProcess(_ store: Store, instances: InstanceFactory) -> Bool {
    instances.runsPluginsHere && !store.waitUntilIdle(timeout: .zero)
  }

  /// This exploration with its instances in workers that end a hang (`hangEndingWorkers`).
  private var inWorkers: StoreExploration {
    let workers = Self.hangEndingWorkers(timeout: timeout)
    let setup = ExplorationSetup(
      config: setup.config, maxFeedbackSteps: setup.maxFeedbackSteps, clock: setup.clock, instances: workers.instances)
    return StoreExploration(plugin: plugin, setup: setup, timeout: workers.settle, invariant: invariant, cache: cache)
  }

  /// The first of `runs` runs (each `attempt`, drawing from its own seeded source) that fails,
  /// shrunk with `simpler` to steps that `rerun` still fails the same way (the same kind); nil
  /// when every run passed. Shared by feature and flow explorations.
  static func firstFailure(
    runs: Int, seed: UInt64, simpler: @escaping (ExploreStep) -> [ExploreStep],
    attempt: (inout SeededRandom) -> Failure?, rerun: ([ExploreStep]) -> Failure?
  ) -> Found? {
    for run in 0..<runs {
      var random = SeededRandom(seed: SeededRandom.seed(seed, run: run))
      guard let failure = attempt(&random) else { continue }
      var last = failure
      var shrinker = StepShrinker(simpler: simpler)
      let shrunk = shrinker.shrink(failure.steps) { candidate in
        guard let again = rerun(candidate), again.kind == failure.kind else { return false }
        last = again
        return true
      }
      return Found(steps: shrunk, problem: rerun(shrunk)?.problem ?? last.problem)
    }
    return nil
  }

  /// The steps run up to the failing one, what kind of failure, and why.
  struct Failure {
    var steps: [ExploreStep]
    var kind: String
    var problem: String
  }

  /// Runs `steps` in a fresh store; nil when every check held.
  ///
  /// A refusal is checked on the store thread as it happens, against the state right after the
  /// action before it (an effect's or a feedback's included), not against what settling left.
  func run(_ steps: [ExploreStep], grace: Duration = .zero) -> Failure? {
    let watch = RefusalWatch()
    let store: Store
    do {
      store = try Store(
        plugin: plugin, config: setup.config,
        options: Store.Options(
          maxFeedbackSteps: setup.maxFeedbackSteps, rendersViews: false, clock: setup.clock,
          batchesDispatches: false),
        instances: setup.instances, observer: watch.hear)
      watch.watch(store)
      try store.start()
    } catch {
      return Failure(steps: [], kind: "error", problem: "no store to explore in: \(error)")
    }
    // Set when a call never returned in process: its thread cannot be ended, so the store is
    // stopped without waiting for it (the thread is left behind).
    var stuck = false
    defer {
      if stuck {
        DispatchQueue.global().async { _ = store.stop() }
      } else {
        _ = store.stop()
      }
      watch.watch(nil)
    }
    _ = store.settleMovingClock(timeout: timeout, maxTicks: FlowExploration.maxTicks)
    for (index, step) in steps.enumerated() {
      let ran = Array(steps[...index])
      guard let action = try? ActionLine.parse(step.line, manifest: plugin.manifest) else { continue }
      store.send(action, source: .user)
      let settled = Self.settle(
        store, timeout: timeout, grace: grace, maxTicks: FlowExploration.maxTicks, instances: setup.instances)
      if !settled {
        if Self.isStuckInProcess(store, instances: setup.instances) {
          stuck = true
          return Failure(
            steps: ran, kind: Self.hang,
            problem: "\(plugin.id) did not answer within \(timeout) in process (a call that never returns)")
        }
        return Failure(steps: ran, kind: "crash", problem: "\(plugin.id) did not settle within \(timeout) (a hang?)")
      }
      if let violation = watch.violation {
        return Failure(steps: ran, kind: violation.kind, problem: violation.description)
      }
      let state: String
      switch store.perform({ [cache] in SessionRuntime.probe($0, id: plugin.id, cache: cache) }) {
      case .failure(let violation): return Failure(steps: ran, kind: violation.kind, problem: violation.description)
      case .success(let now): state = now
      }
      guard let value = try? JSONValue.parse(state), invariant(value) else {
        return Failure(steps: ran, kind: "invariant", problem: "the invariant does not hold for \(state)")
      }
    }
    return nil
  }
}

/// Watches a store's events on its thread: the state after each applied action, and a user
/// action refused that changed it, or an instance lost. The first violation is kept.
// @unchecked: `store` and `found` are guarded by `lock`.
final class RefusalWatch: @unchecked Sendable {
  private let lock = NSLock()
  /// Released by `watch(nil)`: the store holds this watch (its observer).
  private var store: Store?
  private var last: String?
  private var found: ContractViolation?

  func watch(_ store: Store?) { lock.withLock { self.store = store } }

  var violation: ContractViolation? { lock.withLock { found } }

  func hear(_ event: StoreEvent) {
    guard let store = lock.withLock({ store }) else { return }
    switch event {
    case .applied:
      // On the store thread: `perform` runs at once, before the next action.
      let state = store.perform { try? $0.snapshot() }
      lock.withLock { last = state }
    case .rejected(let action, .user, _, _):
      guard let after = store.perform({ try? $0.snapshot() }) else { return }
      lock.withLock {
        if let before = last, before != after, found == nil {
          found = .refusalChangedState(action: action, before: before, after: after)
        }
      }
    case .instanceLost(let loss, _, let action):
      // A worker killed at the call timeout hung; any other loss is a crash.
      let what = "\(loss)" + (action.map { " applying \($0)" } ?? "")
      lock.withLock {
        if found == nil {
          if case .unresponsive = loss { found = .hung(what) } else { found = .crashed(what) }
        }
      }
    default:
      break
    }
  }
}
