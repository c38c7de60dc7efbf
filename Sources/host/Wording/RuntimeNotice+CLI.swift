import HostKit

extension RuntimeNotice {
  /// The notice as the command line shows it, naming its flags and `:` commands.
  var commandLineText: String {
    switch self {
    case .configKept(let session, let config):
      "session '\(session)' keeps the config it was created with, \(config); --config is ignored"
    case .paused(let feature): "\(feature) is paused by the runaway guard; ':resume' to go on"
    case .feedbackPaused(let feature): "\(feature) paused; ':resume' to go on"
    default: description
    }
  }
}
