/// Why a feature the registry listed could not be loaded when it was launched.
public enum RegistryFailure: EngineFailure, Equatable {
  /// The file failed to load (it changed, or loads differently here than in the scanner).
  case cannotLoad(feature: String, PluginLoadError)
  /// The file now holds a feature with another id.
  case changedSinceScan(feature: String, path: String, now: String)

  public var description: String {
    switch self {
    case .cannotLoad(let feature, let error): "cannot load feature '\(feature)': \(error.message)"
    case .changedSinceScan(let feature, let path, let now):
      "'\(path)' held feature '\(feature)' when it was scanned and now holds '\(now)'"
    }
  }

  public var advice: String? {
    switch self {
    case .cannotLoad(_, let error): error.help
    case .changedSinceScan: "the file changed after it was scanned; start again so it is scanned afresh"
    }
  }
}
