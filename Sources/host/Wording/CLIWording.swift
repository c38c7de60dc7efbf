import HostKit

/// An engine failure whose help the command line words itself (naming its flags and `:` commands).
protocol CLIWorded: EngineFailure {
  /// The help line at the command line; nil keeps the engine's own advice.
  var commandLineHelp: String? { get }
}

extension HostError {
  /// This error as the command line shows it: an engine failure's help in the CLI's own words.
  var worded: HostError {
    guard let worded = failure as? any CLIWorded, let help = worded.commandLineHelp else { return self }
    var copy = self
    copy.help = help
    return copy
  }
}
