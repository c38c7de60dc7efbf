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
  }
  private let watch = Mutex(Watch())

  /// The first rule broken so far, if any.
  var violation: ContractViolation? { watch.withLock { $0.violation } }

  /// Records `state` as `feature`'s last (after a travel, which applies no action).
  func saw(_ state: String, of feature: PresentedFeature) {
    watch.withLock { $0.states[ObjectIdentifier(feature.store)] = state }
  }

  func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    guard let feature = origin.feature else { return }
    let key = ObjectIdentifier(feature.store)
    switch event {
    case .applied:
      // On the store thread: `perform` runs the probe at once, before the next action.
      switch feature.store.perform({ SessionRuntime.probe($0, id: feature.id) }) {
      case .success(let state): watch.withLock { $0.states[key] = state }
      case .failure(let violation): found(violation)
      }
    case .rejected(let action, let source, let error, _):
      if error.isLifecycle && !feature.store.isClosed {
        found(.stopped(feature: feature.id, reason: error.description))
        return
      }
      guard source == .user,
        case .success(let state) = feature.store.perform({ SessionRuntime.probe($0, id: feature.id) })
      else { return }
      let before = watch.withLock { $0.states[key] }
      if let before, before != state { found(.refusalChangedState(action: action, before: before, after: state)) }
    case .instanceLost(let loss, let call, let action):
      found(
        .crashed(
          "\(feature.id) \(loss)"
            + (action.map { " while applying \($0)" } ?? (call.isEmpty ? " between calls" : " during \(call)"))))
    default:
      break
    }
  }

  private func found(_ violation: ContractViolation) {
    watch.withLock { if $0.violation == nil { $0.violation = violation } }
  }
}
