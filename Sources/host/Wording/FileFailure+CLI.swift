import HostKit

extension FileFailure: CLIWorded {
  var commandLineHelp: String? {
    switch self {
    case .exists(let path): "':save! \(path)' replaces it"
    case .inStateFolder, .isJournal: "':save' a state outside the state folder; 'host sessions' manages sessions"
    default: nil
    }
  }
}
