import FeatureJSON
import HostKit
import Synchronization

/// Checks the contract as the stores run, so exploring streams actions as a pipe does instead of
/// waiting for each. On each store's own thread, right after each action it applies: the state's
/// snapshot; a refused action compared with the state just before it; a lost instance; a feature
/// on show answering "stopped". Beside the stores, on the run's thread (`checkNext`, while it
/// waits for a travel, and `checkPending`): each new state's round trip (restore, snapshot,
/// render) in an instance of its own, so no action waits for it. Of the violations found, the
/// one the stores reached first is kept for the run to find, as if every check had been made
/// at once.
final class ProbeListener: StoreListener {
  /// What the probe of one store keeps: the states already round-tripped, the journal it notes
  /// states in, the last state it saw, and the instance the round trips are made in.
  ///
  /// It holds its feature (and so the store) for the run: a state reached before the feature
  /// closed is still checked, and no later store can take its store's address (the key).
  private final class StoreProbe: @unchecked Sendable {
    // @unchecked: `cache` is its own lock's; `feature` and `journal` are set once; `state` is
    // read and written under the listener's `watch` lock only; `aside` under its `checker` lock
    // only (so the instance's calls never overlap, as feature_abi.h asks).
    let feature: PresentedFeature
    let cache = ProbeCache()
    let journal: SessionJournal?
    var state: String?
    var aside: (any PluginInstance)?
    init(_ feature: PresentedFeature) {
      self.feature = feature
      journal = SessionRuntime.journal(of: feature)
    }
  }

  /// A state a store reached, to be round-tripped beside it.
  private struct Pending {
    let probe: StoreProbe
    let state: String
    /// The event that reached it (see `Watch.heard`), and the steps taken by then.
    let order: Int
    let steps: Int
  }

  private struct Watch {
    /// Each store's probe, by store.
    var probes: [ObjectIdentifier: StoreProbe] = [:]
    /// The probe found last, and its store: a run's events mostly come from one store.
    var lastProbe: (store: ObjectIdentifier, probe: StoreProbe)?
    var violation: ContractViolation?
    /// The event it was found at: a violation found later but reached earlier replaces it.
    var violationOrder = Int.max
    /// The steps the stores had taken when it was reached.
    var stepsAtViolation = 0
    /// The steps the stores have taken so far: user actions (applied, refused or lost) and
    /// travels, as `ExploreRun.cut` counts them.
    var steps = 0
    /// The user actions they refused so far.
    var refusals = 0
    /// The actions the stores applied so far, from any source.
    var applied = 0
    /// The events heard so far: the stores' progress, for the hang watch, and each event's order.
    var heard = 0
    /// The states reached and not yet round-tripped, in the order reached, and their bytes.
    var pending: [Pending] = []
    var pendingBytes = 0
  }
  // Locked, not Mutex: the store threads and the run's thread contend for both, and
  // ThreadSanitizer sees a pthread mutex change hands (see Locked).
  private let watch = Locked(Watch())
  /// Whether to probe on the store thread at each applied action. Only in process: a worker's
  /// instance may be in the middle of a batch when the store reports, and takes no call then.
  private let probes: Bool
  /// The round trips made so far, and the steps (plus one) behind the state in one now
  /// (0: none): the checking thread's progress and where it stands, for the hang watch.
  private let checks = Atomic<Int>(0)
  private let inCheck = Atomic<Int>(0)
  /// Whether the states waiting for their round trip hold more than `backlogLimit` bytes.
  private let backlogged = Atomic<Bool>(false)
  private static let backlogLimit = 16 << 20
  private let checker = Locked(Checker())

  /// The states taken from `Watch.pending` and not yet checked, and what checks them. Whoever
  /// checks holds the lock for the whole round trip.
  private struct Checker {
    var items: [Pending] = []
    var next = 0
    /// The order of the violation kept when the items were taken: none after it is checked.
    var before = Int.max
    /// What makes the instances for checks (`attach`); once the checks ended, nothing more.
    weak var runtime: SessionRuntime?
    var ended = false
  }

  init(probes: Bool) { self.probes = probes }

  /// Whether the run should round-trip the states waiting now (`checkPending`) before it sends
  /// more: they hold more than `backlogLimit` bytes (large states, each new).
  var isBacklogged: Bool { backlogged.load(ordering: .relaxed) }

  /// The rule broken first so far, if any. Asked after every step: the lock only once one was.
  var violation: ContractViolation? {
    guard foundAny.load(ordering: .acquiring) else { return nil }
    return watch.withLock { $0.violation }
  }
  /// Whether a violation was found (set under the `watch` lock, read without it).
  private let foundAny = Atomic<Bool>(false)

  /// How many user actions the stores refused, and how many actions they applied, so far.
  var refusals: Int { watch.withLock { $0.refusals } }
  var applied: Int { watch.withLock { $0.applied } }

  /// How many events the stores reported and round trips were made so far: while it moves, they
  /// are not stuck.
  var heard: Int { watch.withLock { $0.heard } + checks.load(ordering: .relaxed) }

  /// How many steps the stores have taken so far (user actions applied, refused or lost, and
  /// travels).
  var steps: Int { watch.withLock { $0.steps } }

  /// How many steps had been taken when the violation was reached, counting the one that
  /// broke the rule: the run is cut there, whatever was sent after it meanwhile.
  var stepsAtViolation: Int { watch.withLock { $0.stepsAtViolation } }

  /// While a round trip is being made: the steps behind the state in it.
  var stepsInCheck: Int? {
    let now = inCheck.load(ordering: .relaxed)
    return now == 0 ? nil : now - 1
  }

  /// The probe of `feature`'s store (made at its first use, with its instance for checks: a
  /// point the run's steps fix, not whenever its first check comes, for making an instance is a
  /// call of the plugin's, which a plugin with state shared by its instances notices).
  private func probe(of feature: PresentedFeature) -> StoreProbe {
    let key = ObjectIdentifier(feature.store)
    if let probe = watch.withLock({ $0.probes[key] }) { return probe }
    let made = StoreProbe(feature)
    let probe = watch.withLock { watch in
      if let probe = watch.probes[key] { return probe }
      watch.probes[key] = made
      return made
    }
    // Only where the stores probe: in a worker each step is probed on the store's own instance.
    if probe === made && probes {
      checker.withLock { checker in
        guard !checker.ended, made.aside == nil, let runtime = checker.runtime else { return }
        // A failure is reported by the first check, which tries again.
        made.aside = try? runtime.instanceForChecks(of: feature)
      }
    }
    return probe
  }

  /// The states of `feature`'s store already round-tripped.
  func cache(for feature: PresentedFeature) -> ProbeCache { probe(of: feature).cache }

  /// Records `state` as `feature`'s last (after a travel, which applies no action).
  func saw(_ state: String, of feature: PresentedFeature) {
    let probe = probe(of: feature)
    watch.withLock { _ in probe.state = state }
  }

  func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    // Not retained here: `origin` holds the feature while it is heard, and the feature's count
    // is kept in a side table (it is held weakly elsewhere), each retain a slow path.
    guard origin.feature != nil else { return }
    unowned(unsafe) let feature = origin.feature.unsafelyUnwrapped
    // An applied action's event, the path of every action, matched once.
    if case .applied(_, _, let source, _) = event {
      heardApplied(from: feature, user: source == .user)
      return
    }
    // What the event counts for, worked out before the lock (the event is not copied there).
    var (user, refused) = (0, 0)
    switch event {
    case .rejected(_, .user, _, _): (user, refused) = (1, 1)
    case .instanceLost(_, _, _?): user = 1
    default: break
    }
    let store = feature.store
    let key = ObjectIdentifier(store)
    let (seen, order, steps) = watch.withLock { watch -> (StoreProbe?, Int, Int) in
      watch.heard += 1
      watch.steps += user
      watch.refusals += refused
      return (watch.probes[key], watch.heard, watch.steps)
    }
    switch event {
    case .rejected(let action, let source, let error, _):
      if error.isLifecycle && !store.isClosed {
        found(.stopped(feature: feature.id, reason: error.description), order: order, steps: steps)
        return
      }
      guard probes, source == .user else { return }
      let probe = seen ?? self.probe(of: feature)
      var failure: PluginCallError?
      guard let state = Self.snapshot(of: store, failure: &failure) else { return }
      let before = watch.withLock { watch -> String? in
        let before = probe.state
        if before == nil {
          probe.state = state
          hold(Pending(probe: probe, state: state, order: order, steps: steps), in: &watch)
        }
        return before
      }
      if let before, before != state {
        found(.refusalChangedState(action: action, before: before, after: state), order: order, steps: steps)
      }
    case .instanceLost(let loss, let call, let action):
      let what =
        "\(feature.id) \(loss)"
        + (action.map { " while applying \($0)" } ?? (call.isEmpty ? " between calls" : " during \(call)"))
      // A call past the call timeout is a hang, whose worker was ended: no crash of the plugin's.
      if case .unresponsive = loss {
        found(.hung(what), order: order, steps: steps)
      } else {
        found(.crashed(what), order: order, steps: steps)
      }
    default:
      break
    }
  }

  /// An applied action's event, on the store thread: its state snapshot and queued for its
  /// round trip, and noted for travels; or the rule the snapshot broke kept.
  private func heardApplied(from feature: PresentedFeature, user: Bool) {
    var failure: PluginCallError?
    let store = feature.store
    let state = probes ? Self.snapshot(of: store, failure: &failure) : nil
    // The counts, the store's probe and the state queued in one trip to the lock.
    let key = ObjectIdentifier(store)
    let (seen, order, steps) = watch.withLock { watch -> (StoreProbe?, Int, Int) in
      watch.heard += 1
      watch.applied += 1
      if user { watch.steps += 1 }
      let seen: StoreProbe?
      if let last = watch.lastProbe, last.store == key {
        seen = last.probe
      } else {
        seen = watch.probes[key]
        if let seen { watch.lastProbe = (key, seen) }
      }
      if let state, let seen {
        seen.state = state
        hold(Pending(probe: seen, state: state, order: watch.heard, steps: watch.steps), in: &watch)
      }
      return (seen, watch.heard, watch.steps)
    }
    guard probes else { return }
    if let state {
      // Noted for travels to start from.
      let probe = seen ?? queue(state, of: feature, order: order, steps: steps)
      probe.journal?.noteState(state)
    } else if let failure {
      found(ContractViolation(failure, of: feature.id), order: order, steps: steps)
    }
  }

  /// On `feature`'s store thread, after a travel (which applies no action): the travel counted as
  /// a step, and the state it reached kept as the last seen and queued for its check, or the rule
  /// its snapshot broke kept.
  func travelled(_ feature: PresentedFeature) {
    var failure: PluginCallError?
    let state = Self.snapshot(of: feature.store, failure: &failure)
    let (order, steps) = tookStep()
    if let state {
      _ = queue(state, of: feature, order: order, steps: steps)
    } else if let failure {
      found(ContractViolation(failure, of: feature.id), order: order, steps: steps)
    }
  }

  /// Counts a step that applies no action (a travel), once the steps before it were heard:
  /// its place in the stores' event order, and the steps taken with it.
  @discardableResult
  func tookStep() -> (order: Int, steps: Int) {
    watch.withLock { watch in
      watch.heard += 1
      watch.steps += 1
      return (watch.heard, watch.steps)
    }
  }

  /// Names the runtime whose features the stores present: it makes the instances for checks.
  func attach(_ runtime: SessionRuntime) { checker.withLock { $0.runtime = runtime } }

  /// Round-trips every state the stores reached so far, waiting for a check made elsewhere.
  func checkPending() {
    while checker.withLock({ checkNext(&$0) }) {}
  }

  /// Round-trips the next state a store reached, if there is one and no one else is checking:
  /// whether it did. For a thread with a moment to spare (the run's, waiting for a travel).
  func checkNext() -> Bool {
    checker.withLockIfAvailable { checkNext(&$0) } ?? false
  }

  /// Round-trips the next state, in its store's instance for checks (made at the first):
  /// restore, snapshot, render, as the probe does on the store's own. None is checked past the
  /// first that fails.
  private func checkNext(_ checker: inout Checker) -> Bool {
    guard !checker.ended else { return false }
    if checker.next == checker.items.count {
      checker.items.removeAll(keepingCapacity: true)
      checker.next = 0
      // Swapped, not copied: each side keeps its buffer's capacity.
      checker.before = watch.withLock { watch in
        swap(&watch.pending, &checker.items)
        watch.pendingBytes = 0
        backlogged.store(false, ordering: .relaxed)
        return watch.violationOrder
      }
      if checker.items.isEmpty { return false }
    }
    let item = checker.items[checker.next]
    checker.next += 1
    guard item.order < checker.before, item.probe.cache.insertIfNew(item.state) else { return true }
    guard let instance = aside(of: item.probe, in: &checker, order: item.order, steps: item.steps) else {
      checker.before = item.order
      return true
    }
    inCheck.store(item.steps + 1, ordering: .relaxed)
    let checked = SessionRuntime.roundTrip(instance, id: item.probe.feature.id, first: item.state)
    inCheck.store(0, ordering: .relaxed)
    checks.add(1, ordering: .relaxed)
    if case .failure(let violation) = checked {
      item.probe.cache.remove(item.state)
      found(violation, order: item.order, steps: item.steps)
      checker.before = item.order
    }
    return true
  }

  /// Replaces the instance for checks of `feature` (its build changed) with one of the new build.
  func rebuilt(_ feature: PresentedFeature) {
    let probe = probe(of: feature)
    checker.withLock { checker in
      probe.aside?.destroy()
      probe.aside = checker.ended || !probes ? nil : try? checker.runtime?.instanceForChecks(of: feature)
    }
  }

  /// Ends the checks (after the last `checkPending`): destroys the instances for checks, once a
  /// check under way is done.
  func endChecks() {
    let probes = watch.withLock { Array($0.probes.values) }
    checker.withLock { checker in
      checker.ended = true
      for probe in probes {
        probe.aside?.destroy()
        probe.aside = nil
      }
    }
  }

  /// `probe`'s instance for checks, made now if need be (under the `checker` lock); nil (the
  /// violation found, unless the run ended) when none can be. (The runtime is read only then: a
  /// weak load at every check costs more than the check's bookkeeping.)
  private func aside(of probe: StoreProbe, in checker: inout Checker, order: Int, steps: Int)
    -> (any PluginInstance)?
  {
    if let instance = probe.aside { return instance }
    let feature = probe.feature
    // Gone only once the run ended (no check is made then).
    guard let runtime = checker.runtime else { return nil }
    do throws(HostError) {
      probe.aside = try runtime.instanceForChecks(of: feature)
      return probe.aside
    } catch {
      let failure = ContractViolation.failed("\(feature.id): no instance to check its states in: \(error.message)")
      found(failure, order: order, steps: steps)
      return nil
    }
  }

  private static func snapshot(_ instance: any PluginInstance) -> Result<String, PluginCallError> {
    Result { () throws(PluginCallError) in try instance.snapshot() }
  }

  /// The state of `store`'s instance, taken on its thread when called there; nil with `failure`
  /// set when the snapshot failed. No `Result` on the path of every action: copying one out
  /// costs more than the snapshot's own bookkeeping.
  private static func snapshot(of store: Store, failure: inout PluginCallError?) -> String? {
    var error: PluginCallError?
    let here = store.performHere { instance -> String? in
      do throws(PluginCallError) {
        return try instance.snapshot()
      } catch let thrown {
        error = thrown
        return nil
      }
    }
    switch here {
    case .some(let state?): return state
    case .some(nil): failure = error
    case nil:
      switch store.perform(Self.snapshot) {
      case .success(let state): return state
      case .failure(let thrown): failure = thrown
      }
    }
    return nil
  }

  /// Queues `pending` for its round trip, under the `watch` lock.
  private func hold(_ pending: Pending, in watch: inout Watch) {
    watch.pending.append(pending)
    watch.pendingBytes += pending.state.utf8.count
    if watch.pendingBytes > Self.backlogLimit { backlogged.store(true, ordering: .relaxed) }
  }

  /// Makes `feature`'s probe (the first event of its store) and queues `state` for its check.
  private func queue(_ state: String, of feature: PresentedFeature, order: Int, steps: Int) -> StoreProbe {
    let probe = probe(of: feature)
    watch.withLock { watch in
      probe.state = state
      hold(Pending(probe: probe, state: state, order: order, steps: steps), in: &watch)
    }
    return probe
  }

  /// Keeps `violation` unless one reached at an earlier event is kept already.
  private func found(_ violation: ContractViolation, order: Int, steps: Int) {
    watch.withLock { watch in
      guard order < watch.violationOrder else { return }
      watch.violation = violation
      watch.violationOrder = order
      watch.stepsAtViolation = steps
      foundAny.store(true, ordering: .releasing)
    }
  }
}
