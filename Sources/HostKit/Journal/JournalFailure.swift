#if canImport(Glibc)
  import Glibc
#endif

/// Why a journal (a feature's or the navigation's) could not be read, written or travelled in.
///
/// Every case names the file; `description` is the error line, `advice` how to fix it in words
/// that hold for any front end.
public enum JournalFailure: EngineFailure, Equatable {
  // MARK: The file

  /// A system call on the file failed: `operation` is a verb phrase ("open", "sync", "create a
  /// journal in"), `code` the errno.
  case system(operation: String, path: String, code: Int32)
  /// Another process holds the journal's lock.
  case inUse(path: String)
  /// The path names a folder, a device or anything else that is not a regular file.
  case notRegularFile(path: String)
  /// A new journal was to be created where one already exists.
  case alreadyExists(path: String)
  /// The journal was closed (or failed) and takes no more appends.
  case closed(path: String)

  // MARK: Writing

  /// An action or state (`what`) that is not a JSON object.
  case notJSONObject(what: String, json: String)
  /// An action or state that looks like one JSON object but does not parse (`detail`: where, why).
  case invalidJSON(what: String, json: String, detail: String)
  /// A load travel was given a seq to travel to.
  case loadTravelWithTarget
  /// A travel to a seq that is not before the travel's own.
  case travelOutOfRange(kind: TravelKind, to: Int?, path: String, lastSeq: Int)
  /// A header config that is not a JSON object.
  case configNotObject(config: String)

  // MARK: Reading

  /// The file has no bytes at all.
  case empty(path: String)
  /// Line 1 is not JSON.
  case headerNotJSON(path: String, detail: String)
  /// Line 1 lacks the marker of this kind of journal (`marker`, e.g. "featurehost").
  case headerWithoutMarker(path: String, marker: String)
  /// The header's format is missing or not a whole number of 1 or more.
  case headerFormatInvalid(path: String)
  /// The header's format is newer than this host reads.
  case headerFormatTooNew(path: String, format: String, readable: Int)
  /// A navigation journal's format is newer than this host reads.
  case navigationFormatTooNew(path: String, format: String)
  /// A required header key is missing or not a non-empty string.
  case headerKeyMissing(path: String, key: String)
  /// The header's config is not a JSON object.
  case headerConfigNotObject(path: String)
  /// The journal is of another feature than the one it was opened for.
  case otherFeature(path: String, feature: String, expected: String)
  /// A line that is not the last one (or a complete last one) is wrong: `problem` says how.
  case damaged(path: String, line: Int, problem: String)
  /// A navigation journal's line that is not a navigation record (the last one is a torn tail).
  case notNavigationRecord(path: String, line: Int)

  // MARK: Time travel

  /// There is no action typed since the start or the last load.
  case nothingToUndo
  /// No undo came before, or a new action ended what could be redone.
  case nothingToRedo
  /// A seq outside the history.
  case noSuchSeq(path: String, seq: Int, lastSeq: Int)
  /// The journal holds no state at or before `seq` to start from.
  case noStateBefore(path: String, seq: Int)
  /// The feature could not give its state (`forJournal`: for a snapshot line).
  case snapshotFailed(feature: String, forJournal: Bool, detail: String)
  /// The feature refused a state loaded from outside; it keeps the state it had.
  case loadRefused(feature: String, detail: String)
  /// The feature's worker was lost restoring a state loaded from outside.
  case loadLost(feature: String, loss: InstanceLoss)
  /// The feature refused a state or an action of the journal while it was restored.
  case replayRefused(path: String, feature: String, what: String, detail: String)

  public var description: String {
    switch self {
    case .system(let operation, let path, let code):
      "cannot \(operation) '\(path)': \(JournalFile.describe(code))"
    case .inUse(let path):
      "the journal '\(path)' is in use by another host process"
    case .notRegularFile(let path):
      "'\(path)' is not a regular file"
    case .alreadyExists(let path):
      "a journal already exists at '\(path)'; it was left as it is"
    case .closed(let path):
      "journal '\(path)' is closed"
    case .notJSONObject(let what, let json):
      "cannot journal the \(what) \(json): it is not a JSON object"
    case .invalidJSON(let what, let json, let detail):
      "cannot journal the \(what) \(json): it is not a JSON object (\(detail))"
    case .loadTravelWithTarget:
      "a load travel has no seq to travel to"
    case .travelOutOfRange(let kind, let to, let path, _):
      "cannot \(kind.rawValue) to seq \(to.map(String.init) ?? "nil") in journal '\(path)'"
    case .configNotObject(let config):
      "the config \(config) is not a JSON object"
    case .empty(let path):
      "'\(path)' is empty: a journal starts with a header line"
    case .headerNotJSON(let path, let detail):
      "'\(path)' is not a FeatureHost journal: line 1 is not JSON (\(detail))"
    case .headerWithoutMarker(let path, let marker):
      marker == JournalHeader.marker
        ? "'\(path)' is not a FeatureHost journal: line 1 has no \"journal\":\"\(marker)\" header"
        : "'\(path)' line 1: not a navigation journal"
    case .headerFormatInvalid(let path):
      "journal '\(path)' line 1: the header has no valid \"format\" (1 or newer)"
    case .headerFormatTooNew(let path, let format, let readable):
      "journal '\(path)' line 1: format \(format) is newer than this host reads (\(readable))"
    case .navigationFormatTooNew(let path, let format):
      "'\(path)' line 1: format \(format) is newer than 1"
    case .headerKeyMissing(let path, let key):
      "journal '\(path)' line 1: the header has no \"\(key)\" (a non-empty string)"
    case .headerConfigNotObject(let path):
      "journal '\(path)' line 1: the header's \"config\" is not a JSON object"
    case .otherFeature(let path, let feature, let expected):
      "the journal '\(path)' belongs to feature '\(feature)', not '\(expected)'"
    case .damaged(let path, let line, let problem):
      "journal '\(path)' line \(line) \(problem)"
    case .notNavigationRecord(let path, let line):
      "'\(path)' line \(line): not a navigation record"
    case .nothingToUndo:
      "nothing to undo: no action typed since the start or the last load"
    case .nothingToRedo:
      "nothing to redo"
    case .noSuchSeq(let path, let seq, _):
      "there is no seq \(seq) in journal '\(path)'"
    case .noStateBefore(let path, let seq):
      "journal '\(path)' holds no state at or before seq \(seq) to start from"
    case .snapshotFailed(let feature, let forJournal, let detail):
      "feature '\(feature)' could not snapshot its state\(forJournal ? " for the journal" : ""): \(detail)"
    case .loadRefused(let feature, let detail):
      "feature '\(feature)' refused the state: \(detail)"
    case .loadLost(let feature, let loss):
      "\(feature) \(loss) restoring the state given; it was restarted with the state it had"
    case .replayRefused(let path, let feature, let what, let detail):
      "journal '\(path)': feature '\(feature)' refused \(what): \(detail)"
    }
  }

  public var advice: String? {
    switch self {
    case .system(let operation, _, let code):
      if operation == "open" && code == ENOENT { return "check the path" }
      if operation == "write" && (code == ENOSPC || code == EDQUOT) {
        return "free some disk space; the journal keeps what was committed"
      }
      return nil
    case .inUse:
      return "quit the other host process first, or use another session name"
    case .notRegularFile:
      return "choose a journal file"
    case .alreadyExists:
      return "restore it (open it for append), choose another session name, or remove the session"
    case .closed:
      return "open it again to append"
    case .notJSONObject, .invalidJSON:
      return "a feature's actions and states are JSON objects; this is a bug in the feature"
    case .loadTravelWithTarget:
      return "pass to: nil for .load"
    case .travelOutOfRange(_, _, _, let lastSeq):
      return "travel to a seq from 0 to \(lastSeq)"
    case .configNotObject:
      return "the config must be a JSON object, e.g. {\"interval\":0}"
    case .empty:
      return "remove the session, or choose a journal the host wrote for a session"
    case .headerNotJSON, .headerWithoutMarker, .headerFormatInvalid, .headerKeyMissing,
      .headerConfigNotObject:
      if case .headerWithoutMarker(_, let marker) = self, marker != JournalHeader.marker {
        return "choose a session's navigation.jsonl"
      }
      return "choose a journal the host wrote for a session; its first line is a header like "
        + #"{"feature":"counter",...,"format":1,"journal":"featurehost"}"#
    case .navigationFormatTooNew:
      return "use a newer host"
    case .headerFormatTooNew:
      return "open it with a newer host; this one is \(HostVersion.string)"
    case .otherFeature(_, let feature, _):
      return "open it for feature '\(feature)', or choose another session name"
    case .damaged(_, let line, _):
      return line > 2
        ? "nothing was changed; lines 1-\(line - 1) are intact: keep them in a new file, or remove the session"
        : "nothing was changed; remove the session, or pass another journal"
    case .notNavigationRecord:
      return "cut the file before that line"
    case .nothingToUndo:
      return "the history shows the actions that made the current state"
    case .nothingToRedo:
      return "a redo follows an undo; a new action ends what can be redone"
    case .noSuchSeq(_, _, let lastSeq):
      return "pick a seq from 0 to \(lastSeq)"
    case .noStateBefore:
      return "pick a later seq"
    case .snapshotFailed:
      return nil
    case .loadRefused:
      return "the state is unchanged"
    case .loadLost:
      return "the feature cannot take that state; check it, or report the crash to the feature's author"
    case .replayRefused(_, let feature, _, _):
      return "the journal may come from another version of feature '\(feature)'; "
        + "replay it with that version, or remove the session"
    }
  }
}

extension JournalFailure {
  /// `json` as a message shows it: whole when short, else its start and its length (a state can
  /// be megabytes).
  static func excerpt(_ json: String) -> String {
    let limit = 200
    guard json.utf8.count > limit else { return json }
    return "\(String(decoding: json.utf8.prefix(limit), as: UTF8.self))… (\(json.utf8.count) bytes)"
  }
}
