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
    }
  }

  public var advice: String? {
    switch self {
    case .configRefused: "check the config against the feature's documented settings"
    case .restoreRefused: "the saved state does not fit this version of the feature"
    case .startFailed, .firstSnapshotFailed: nil
    case .runaway: "resume it to let it go on, or inspect its state"
    }
  }
}
