import HostKit

extension RuntimeFailure: CLIWorded {
  var commandLineHelp: String? {
    switch self {
    case .actionRefused(_, let source, _, _):
      source == .user ? "the state is unchanged; ':help' lists the actions and their arguments" : nil
    case .journalMissing(let session, _): "remove the session ('host sessions rm \(session)') to start afresh"
    case .notPaused: "':resume' follows a pause: Ctrl-C during a regulation, or the runaway guard"
    case .notSettled: "raise --settle-timeout, or check what the feature is waiting for"
    case .noTemporaryFolder, .snapshotFailed, .unreadable, .unwritable, .notLaunchedHere, .sessionHoldsOther: nil
    }
  }
}
