import HostKit

extension ActionLineFailure: CLIWorded {
  var commandLineHelp: String? {
    switch self {
    case .unknownAction:
      advice.map { "\($0) (':help' explains them)" }
    case .empty, .lifecycle, .notNameValue, .unknownArgument, .argumentTwice, .missingArgument, .badValue,
      .invalidJSON, .noType, .unterminatedQuote:
      nil
    }
  }
}
