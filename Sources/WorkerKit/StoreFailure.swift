/// Why a store or its instance could not go on.
public enum StoreFailure: EngineFailure, Equatable {
  /// The plugin refused the config it was created with.
  case configRefused(feature: String, config: String, PluginCallError)
  /// The plugin refused a saved state.
  case restoreRefused(feature: String, PluginCallError)
  /// The plugin's `start` failed.
  case startFailed(feature: String, PluginCallError)
  /// The plugin could not give its first state for the journal.
  case firstSnapshotFailed(feature: String, PluginCallError)
  /// A feedback loop ran `steps` actions in a row without settling: the runaway guard paused it.
  case runaway(feature: String, steps: Int)
  /// The instance was lost (its process crashed, exited or stopped answering) during `call`,
  /// applying `action` (nil: none), which was not applied.
  case crashed(feature: String, loss: InstanceLoss, call: String, action: String?)
  /// The instance was lost `crashes` times within `window`: the feature is closed.
  case crashedTooOften(feature: String, crashes: Int, window: Duration)
  /// The instance was lost and no new one could take over: the feature is closed.
  case notRestarted(feature: String, reason: String)
  /// The plugin emitted `action` (as `EmittedAction.excerpt` shows it), which is not a JSON object
  /// with a string "type" (`reason` says how): refused, never applied or journaled.
  case emitRefused(feature: String, action: String, reason: String)
  /// The feature stopped while its journal still could not be written: what it did since the
  /// last commit is lost.
  case unsavedAtStop(feature: String)

  public var description: String {
    switch self {
    case .configRefused(let feature, let config, let error):
      "feature '\(feature)' refused its config \(config): \(error)"
    case .restoreRefused(let feature, let error):
      "feature '\(feature)' could not restore: \(error)"
    case .startFailed(let feature, let error):
      "feature '\(feature)' could not start: \(error)"
    case .firstSnapshotFailed(let feature, let error):
      "feature '\(feature)' could not snapshot its first state: \(error)"
    case .runaway(let feature, let steps):
      "feature '\(feature)' has not settled after \(steps) feedback steps; paused it"
    case .crashed(let feature, let loss, let call, let action):
      "\(feature) \(loss) "
        + (action.map { "while applying \($0)" } ?? (call.isEmpty ? "between calls" : "during \(call)"))
    case .crashedTooOften(let feature, let crashes, let window):
      "\(feature) crashed \(crashes) times within \(window.components.seconds) s; it is closed"
    case .notRestarted(let feature, let reason):
      "\(feature) could not be restarted after it was lost: \(reason); it is closed"
    case .unsavedAtStop(let feature):
      "\(feature) stopped while its journal could not be written: the actions since the last save are lost"
    case .emitRefused(let feature, let action, let reason):
      "feature '\(feature)' emitted \(action), which is not an action: \(reason); it was refused"
    }
  }

  public var advice: String? {
    switch self {
    case .configRefused: "check the config against the feature's documented settings"
    case .restoreRefused: "the saved state does not fit this version of the feature"
    case .startFailed, .firstSnapshotFailed, .crashed: nil
    case .unsavedAtStop: "free disk space before the next run; the journal keeps what was saved"
    case .emitRefused: "an action is a JSON object with a string \"type\"; the plugin's author must fix the emit"
    case .runaway: "resume it to let it go on, or inspect its state"
    case .crashedTooOften, .notRestarted:
      "its journal keeps every applied action and each crash; replay it to see where it crashed"
    }
  }
}
