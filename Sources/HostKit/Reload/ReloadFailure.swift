/// Why a new build of a running feature did not replace it. In every case the running instance
/// goes on with its state.
public enum ReloadFailure: EngineFailure, Equatable {
  /// The new file could not be staged, scanned or loaded (`reason` says which and why).
  case buildRejected(feature: String, path: String, reason: String)
  /// The new file holds another feature.
  case otherFeature(feature: String, path: String, now: String)
  /// The running instance could not give its state.
  case snapshotFailed(feature: String, PluginCallError)
  /// The new build could not make an instance (its create failed, or its worker could not start).
  case createFailed(feature: String, version: String, reason: String)
  /// The new build refused the running state (`FH_ERR_BAD_STATE`, e.g. a renamed field).
  case stateRefused(feature: String, version: String, PluginCallError)
  /// The new build's `start` failed.
  case startFailed(feature: String, version: String, PluginCallError)
  /// The feature is not running (it was closed after a crash, or has stopped).
  case notRunning(feature: String)

  public var description: String {
    switch self {
    case .buildRejected(let feature, let path, let reason):
      "cannot reload \(feature) from '\(path)': \(reason)"
    case .otherFeature(let feature, let path, let now):
      "cannot reload \(feature): '\(path)' now holds feature '\(now)'"
    case .snapshotFailed(let feature, let error):
      "cannot reload \(feature): the running instance could not give its state: \(error)"
    case .createFailed(let feature, let version, let reason):
      "\(feature) \(version) could not be created: \(reason)"
    case .stateRefused(let feature, let version, let error):
      "\(feature) \(version) refused the running state: \(error.message.isEmpty ? "\(error)" : error.message)"
    case .startFailed(let feature, let version, let error):
      "\(feature) \(version) could not start: \(error)"
    case .notRunning(let feature):
      "cannot reload \(feature): it is not running"
    }
  }

  public var advice: String? {
    switch self {
    case .buildRejected(let feature, _, _), .otherFeature(let feature, _, _), .createFailed(let feature, _, _),
      .startFailed(let feature, _, _):
      "the running \(feature) goes on with its state; fix the build and save it again (or type ':reload')"
    case .stateRefused(let feature, _, _):
      "the running \(feature) goes on with its state; make the new build's restore accept it (keep the old "
        + "field names, or read both), then rebuild: it reloads when the file changes (or type ':reload')"
    case .snapshotFailed(let feature, _):
      "the running \(feature) goes on; its state could not be moved to the new build"
    case .notRunning: nil
    }
  }
}
