/// Why a session runtime could not do what was asked, or what went wrong in a feature it runs.
public enum RuntimeFailure: EngineFailure, Equatable {
  /// A feature refused an action; its state is unchanged.
  case actionRefused(feature: String, source: ActionSource, action: String, PluginCallError)
  /// A restored session's navigation names a feature journal that is not there.
  case journalMissing(session: String, journal: String)
  /// The folder for the journals of a run without a session could not be made.
  case noTemporaryFolder(reason: String)
  /// A feature could not give its state.
  case snapshotFailed(feature: String, PluginCallError)
  /// A state file could not be read.
  case unreadable(path: String, reason: String)
  /// A state file could not be written.
  case unwritable(path: String, reason: String)
  /// Resuming a feature that is not paused.
  case notPaused(feature: String)
  /// A feature this runtime did not launch (it keeps no journal of it).
  case notLaunchedHere(feature: String)
  /// A feature still had work in flight when the time to settle ran out.
  case notSettled(feature: String, timeout: Duration, effects: Int)
  /// A session was asked for with another feature than the one it holds.
  case sessionHoldsOther(session: String, holds: String, asked: String)

  public var description: String {
    switch self {
    case .actionRefused(let feature, let source, let action, let error):
      "\(feature) refused the \(source.rawValue) action \(action): \(error)"
    case .journalMissing(_, let journal): "the session's navigation names '\(journal)', which is missing"
    case .noTemporaryFolder(let reason): "cannot create a temporary folder for the run's journals: \(reason)"
    case .snapshotFailed(let feature, let error): "\(feature) could not snapshot its state: \(error)"
    case .unreadable(let path, let reason): "cannot read '\(path)': \(reason)"
    case .unwritable(let path, let reason): "cannot write '\(path)': \(reason)"
    case .notPaused(let feature): "\(feature) is not paused"
    case .notLaunchedHere(let feature): "feature '\(feature)' was not launched by this run"
    case .notSettled(let feature, let timeout, let effects):
      "\(feature) did not settle within \(timeout) (\(effects) effect(s) in flight)"
    case .sessionHoldsOther(let session, let holds, let asked):
      "session '\(session)' holds \(holds), not \(asked)"
    }
  }

  public var advice: String? {
    switch self {
    case .actionRefused(_, let source, _, _):
      source == .user ? "the state is unchanged; the feature's catalogue lists the actions and their arguments" : nil
    case .journalMissing: "remove the session to start afresh"
    case .noTemporaryFolder:
      "point TMPDIR at a folder you can write; a featurehost-runs folder there must be yours, mode 0700"
    case .snapshotFailed, .notLaunchedHere: nil
    case .unreadable: "check the path"
    case .unwritable: "check the folder exists and is writable"
    case .notPaused: "only a paused feature (its feedback loop, or the runaway guard's pause) can be resumed"
    case .notSettled: "allow more time to settle, or check what the feature is waiting for"
    case .sessionHoldsOther(let session, let holds, _):
      "run it as 'host run \(holds) --session \(session)', or pick another session name"
    }
  }
}
