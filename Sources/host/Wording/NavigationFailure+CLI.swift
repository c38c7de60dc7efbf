import HostKit

extension NavigationFailure: CLIWorded {
  var commandLineHelp: String? {
    switch self {
    case .restoredFeatureMissing: "add its folder with --plugins DIR, or remove the session"
    case .nothingToGoBackTo: "':quit' leaves"
    case .nothingRestored, .notShown, .stepLacksField, .unknownFeature: nil
    }
  }
}
