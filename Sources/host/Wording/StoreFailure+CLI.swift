import HostKit

extension StoreFailure: CLIWorded {
  var commandLineHelp: String? {
    switch self {
    case .configRefused: "check the --config value against the feature's documented settings"
    case .runaway: "':resume' to let it go on, ':state' to inspect it, ':quit' to leave"
    case .restoreRefused, .startFailed, .firstSnapshotFailed: nil
    }
  }
}
