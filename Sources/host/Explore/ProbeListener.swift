import HostKit
import Synchronization

/// Checks the contract on each store's own thread, right after each action it applies, so
/// exploring streams actions as a pipe does instead of waiting for each: the probe after every
/// applied action; a refused action compared with the state just before it; a lost instance; a
/// feature on show answering "stopped". The first violation is kept for the run to find.
final class ProbeListener: StoreListener {
  /// What the probe of one store keeps: the states already probed (each distinct state is
  /// round-tripped once), the journal it notes states in, and the last state it saw.
  private final class StoreProbe: @unchecked Sendable {
    // @unchecked: `cache` is its own lock's; `journal` is set once; `state` is read and written
    // under the listener's `watch` lock only.
    let cache = ProbeCache()
    let journal: SessionJournal?
    var state: String?
    init(journal: SessionJournal?) { self.journal = journal }
  }

  private struct Watch {
    /// Each store's probe, by store.
    var probes: [ObjectIdentifier: StoreProbe] = [:]
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

  /// The probe of `feature`'s store (made at its first use).
  private func probe(of feature: PresentedFeature) -> StoreProbe {
    let key = ObjectIdentifier(feature.store)
    if let probe = watch.withLock({ $0.probes[key] }) { return probe }
    let made = StoreProbe(journal: SessionRuntime.journal(of: feature))
    return watch.withLock { watch in
      if let probe = watch.probes[key] { return probe }
      watch.probes[key] = made
      return made
    }
  }

  /// The states of `feature`'s store already probed.
  func cache(for feature: PresentedFeature) -> ProbeCache { probe(of: feature).cache }

  /// Records `state` as `feature`'s last (after a travel, which applies no action).
  func saw(_ state: String, of feature: PresentedFeature) {
    let probe = probe(of: feature)
    watch.withLock { _ in probe.state = state }
  }

  func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    guard let feature = origin.feature else { return }
    // The counts and the store's probe in one trip to the lock: the path of every action.
    let key = ObjectIdentifier(feature.store)
    let seen = watch.withLock { watch -> StoreProbe? in
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
      return watch.probes[key]
    }
    switch event {
    case .applied where probes:
      let probe = seen ?? self.probe(of: feature)
      // On the store thread (a listener hears it there): the probe runs at once, before the next
      // action, with nothing kept of it.
      let probing: (any PluginInstance) -> Result<String, ContractViolation> = {
        SessionRuntime.probeNoting($0, id: feature.id, journal: probe.journal, cache: probe.cache)
      }
      switch feature.store.performHere(probing) ?? feature.store.perform(probing) {
      case .success(let state): watch.withLock { _ in probe.state = state }
      case .failure(let violation): found(violation)
      }
    case .rejected(let action, let source, let error, _):
      if error.isLifecycle && !feature.store.isClosed {
        found(.stopped(feature: feature.id, reason: error.description))
        return
      }
      let probe = seen ?? self.probe(of: feature)
      let cache = probe.cache
      guard probes, source == .user,
        case .success(let state) = feature.store.perform({ SessionRuntime.probe($0, id: feature.id, cache: cache) })
      else { return }
      let before = watch.withLock { _ in probe.state }
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
