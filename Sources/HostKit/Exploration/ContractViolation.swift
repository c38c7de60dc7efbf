/// A rule of the plugin contract a feature broke in a run, as exploration and `:check` find it.
public enum ContractViolation: Error, Equatable, Sendable, CustomStringConvertible {
  /// A call lost the instance: a crash.
  case crashed(String)
  /// A call did not return within the call timeout, or the store did not settle within the
  /// settle timeout: "no hang" is part of the contract.
  case hung(String)
  /// A refused action changed the state.
  case refusalChangedState(action: String, before: String, after: String)
  /// The feature's own restore refused a state its reducer reached.
  case restoreRefused(state: String, reason: String)
  /// snapshot -> restore -> snapshot gave other bytes.
  case roundTripDiffers(first: String, second: String)
  /// The view is not valid UTF-8, or holds a control character.
  case viewUnclean(String)
  /// Replaying the run's journal in a fresh instance reached another state.
  case replayDiffers(recorded: String, replayed: String)
  /// A feature on show answered as if stopped (`FH_ERR_LIFECYCLE`).
  case stopped(feature: String, reason: String)
  /// Anything else the host reported while the step ran.
  case failed(String)

  /// Two violations fail "the same way" when they have the same kind: shrinking keeps it.
  public var kind: String {
    switch self {
    case .crashed: "crash"
    case .hung: "hang"
    case .refusalChangedState: "refusal"
    case .restoreRefused: "invariant"
    case .roundTripDiffers: "round-trip"
    case .viewUnclean: "view"
    case .replayDiffers: "determinism"
    case .stopped: "lifecycle"
    case .failed: "error"
    }
  }

  /// What went wrong, in a few words, for the summary line.
  public var summary: String {
    switch self {
    case .crashed(let what): what
    case .hung(let what): what
    case .refusalChangedState: "a refused action changed the state"
    case .restoreRefused: "restore refused the state"
    case .roundTripDiffers: "snapshot -> restore -> snapshot gave other bytes"
    case .viewUnclean: "the view is not clean text"
    case .replayDiffers: "the journal replays to another state"
    case .stopped(let feature, _): "\(feature), on show, refused an action as stopped"
    case .failed(let what): what
    }
  }

  public var description: String {
    switch self {
    case .crashed(let what): what
    case .hung(let what): what
    case .refusalChangedState(let action, let before, let after):
      "refusing \(action) changed the state from \(before) to \(after)"
    case .restoreRefused(let state, let reason): "restore refused the state \(state) its reducer reached: \(reason)"
    case .roundTripDiffers(let first, let second):
      "snapshot -> restore -> snapshot gave \(second), not \(first)"
    case .viewUnclean(let why): "the view \(why)"
    case .replayDiffers(let recorded, let replayed):
      "the journal replays to \(replayed), not \(recorded) (the reducer is not deterministic)"
    case .stopped(let feature, let reason): "\(feature) is on show but refused an action as stopped: \(reason)"
    case .failed(let what): what
    }
  }
}

extension ContractViolation {
  /// A call of feature `id`'s that failed: a crash when it lost the instance, else a failure.
  public init(_ error: PluginCallError, of id: String) {
    self = error.loss != nil ? .crashed("\(id) \(error)") : .failed("\(id): \(error)")
  }
}
