import HostKit

/// An engine failure whose help the command line words itself (naming its flags and `:` commands).
protocol CLIWorded: EngineFailure {
  /// The help line at the command line; nil keeps the engine's own advice.
  var commandLineHelp: String? { get }
  /// The error line at the command line, when it names a `:` command; nil keeps the engine's.
  var commandLineMessage: String? { get }
}

extension CLIWorded {
  var commandLineMessage: String? { nil }
}

extension HostError {
  /// This error as the command line shows it: an engine failure's help in the CLI's own words.
  var worded: HostError {
    guard let worded = failure as? any CLIWorded else { return self }
    var copy = self
    if let help = worded.commandLineHelp { copy.help = help }
    if let message = worded.commandLineMessage { copy.message = message }
    return copy
  }
}
