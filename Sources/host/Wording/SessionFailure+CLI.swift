import HostKit

extension SessionFailure: CLIWorded {
  var commandLineHelp: String? {
    switch self {
    case .noSuchSession: "'host sessions' lists them"
    case .noStateFolder, .badName, .notAFolder, .cannotList, .cannotRemove: nil
    }
  }
}
