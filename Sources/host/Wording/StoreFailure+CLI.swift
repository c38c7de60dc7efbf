import HostKit

extension StoreFailure: CLIWorded {
  var commandLineHelp: String? {
    switch self {
    case .configRefused: "check the --config value against the feature's documented settings"
    case .runaway: "':resume' to let it go on, ':state' to inspect it, ':quit' to leave"
    case .restoreRefused, .startFailed, .firstSnapshotFailed, .crashed, .emitRefused, .unsavedAtStop: nil
    case .crashedTooOften, .notRestarted:
      "a named session keeps each crash in its journal: 'host replay' shows them, and running it again restores it"

    }
  }
}
