import HostKit
import Synchronization

/// Checks the contract on each store's own thread, right after each action it applies, so
/// exploring streams actions as a pipe does instead of waiting for each: the probe after every
/// applied action; a refused action compared with the state just before it; a lost instance; a
/// feature on show answering "stopped". The first violation is kept for the run to find.
final class ProbeListener: StoreListener {
  private struct Watch {
    /// The last state each feature's probe saw, by store.
    var states: [ObjectIdentifier: String] = [:]
    var violation: ContractViolation?
    /// The user actions the stores had taken (applied, refused or lost) when it was found.
    var actionsAtViolation = 0
    /// The user actions the stores have taken so far, and refused so far.
    var actions = 0
    var refusals = 0
    /// The actions the stores applied so far, from any source.
    var applied = 0
    /// The events heard so far: the stores' progress, for the hang watch.
    var heard = 0
  }
  private let watch = Mutex(Watch())
  /// The states already probed, by store: each distinct state is round-tripped once.
  private let caches = Mutex<[ObjectIdentifier: ProbeCache]>([:])
  /// Whether to probe on the store thread at each applied action. Only in process: a worker's
  /// instance may be in the middle of a batch when the store reports, and takes no call then.
  private let probes: Bool

  init(probes: Bool) { self.probes = probes }

  /// The first rule broken so far, if any.
  var violation: ContractViolation? { watch.withLock { $0.violation } }

  /// How many user actions the stores refused, and how many actions they applied, so far.
  var refusals: Int { watch.withLock { $0.refusals } }
  var applied: Int { watch.withLock { $0.applied } }

  /// How many events the stores reported so far: while it moves, they are not stuck.
  var heard: Int { watch.withLock { $0.heard } }

  /// How many user actions the stores have taken so far (applied, refused or lost).
  var actions: Int { watch.withLock { $0.actions } }

  /// How many user actions had been taken when the violation was found, counting the one that
  /// broke the rule: the run is cut there, whatever was sent after it meanwhile.
  var actionsAtViolation: Int { watch.withLock { $0.actionsAtViolation } }

  /// The states of `feature`'s store already probed.
  func cache(for feature: PresentedFeature) -> ProbeCache {
    caches.withLock { caches in
      let key = ObjectIdentifier(feature.store)
      if let cache = caches[key] { return cache }
      let cache = ProbeCache()
      caches[key] = cache
      return cache
    }
  }

  /// Records `state` as `feature`'s last (after a travel, which applies no action).
  func saw(_ state: String, of feature: PresentedFeature) {
    watch.withLock { $0.states[ObjectIdentifier(feature.store)] = state }
  }

  func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    guard let feature = origin.feature else { return }
    let key = ObjectIdentifier(feature.store)
    watch.withLock { watch in
      watch.heard += 1
      switch event {
      case .applied(_, _, let source, _):
        watch.applied += 1
        if source == .user { watch.actions += 1 }
      case .rejected(_, .user, _, _):
        watch.actions += 1
        watch.refusals += 1
      case .instanceLost(_, _, _?): watch.actions += 1
      default: break
      }
    }
    switch event {
    case .applied where probes:
      // On the store thread: `perform` runs the probe at once, before the next action.
      let cache = cache(for: feature)
      switch feature.store.perform({ SessionRuntime.probeNoting($0, feature: feature, cache: cache) }) {
      case .success(let state): watch.withLock { $0.states[key] = state }
      case .failure(let violation): found(violation)
      }
    case .rejected(let action, let source, let error, _):
      if error.isLifecycle && !feature.store.isClosed {
        found(.stopped(feature: feature.id, reason: error.description))
        return
      }
      let cache = cache(for: feature)
      guard probes, source == .user,
        case .success(let state) = feature.store.perform({ SessionRuntime.probe($0, id: feature.id, cache: cache) })
      else { return }
      let before = watch.withLock { $0.states[key] }
      if let before, before != state { found(.refusalChangedState(action: action, before: before, after: state)) }
    case .instanceLost(let loss, let call, let action):
      let what =
        "\(feature.id) \(loss)"
        + (action.map { " while applying \($0)" } ?? (call.isEmpty ? " between calls" : " during \(call)"))
      // A call past the call timeout is a hang, whose worker was ended: no crash of the plugin's.
      if case .unresponsive = loss { found(.hung(what)) } else { found(.crashed(what)) }
    default:
      break
    }
  }

  private func found(_ violation: ContractViolation) {
    watch.withLock { watch in
      guard watch.violation == nil else { return }
      watch.violation = violation
      watch.actionsAtViolation = watch.actions
    }
  }
}
