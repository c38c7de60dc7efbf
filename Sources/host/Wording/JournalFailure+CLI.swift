import HostKit

#if canImport(Glibc)
  import Glibc
#endif

extension JournalFailure: CLIWorded {
  var commandLineHelp: String? {
    let notAJournal =
      "pass a journal written by 'host run --session'; its first line is a header like "
      + #"{"feature":"counter",...,"format":1,"journal":"featurehost"}"#
    switch self {
    case .system(let operation, _, let code):
      return operation == "open" && code == ENOENT
        ? "check the path; 'host sessions' lists the saved sessions" : nil
    case .inUse: return "quit the other 'host run' first, or use another session name"
    case .notRegularFile: return "pass a journal file"
    case .configNotObject: return "pass the config as a JSON object, e.g. {\"interval\":0}"
    case .empty: return "remove the session, or pass a journal written by 'host run --session'"
    case .headerWithoutMarker(_, let marker) where marker == NavigationJournal.marker:
      return "pass a session's navigation.jsonl"
    case .headerNotJSON, .headerWithoutMarker, .headerFormatInvalid, .headerKeyMissing, .headerConfigNotObject:
      return notAJournal
    case .otherFeature(_, let feature, _):
      return "run it with 'host run \(feature) --session NAME', or choose another session name"
    case .damaged(_, let line, _) where line > 2:
      return "nothing was changed; lines 1-\(line - 1) are intact: 'head -n \(line - 1)' keeps them in a new file, "
        + "or remove the session"
    case .nothingToUndo: return "':history' shows the actions that made the current state"
    case .nothingToRedo: return "':redo' follows ':undo'; a new action ends what can be redone"
    case .noSuchSeq(_, _, let lastSeq): return "pick a seq from 0 to \(lastSeq); ':history' lists them"
    case .noStateBefore: return "pick a later seq; ':history' lists them"
    default: return nil
    }
  }

  var commandLineMessage: String? {
    switch self {
    case .nothingToUndo: "nothing to undo: no action typed since the start or the last ':load'"
    default: nil
    }
  }
}
