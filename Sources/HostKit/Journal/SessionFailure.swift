/// Why the sessions folder or a session in it could not be used.
public enum SessionFailure: EngineFailure, Equatable {
  /// Neither XDG_STATE_HOME nor HOME is an absolute path.
  case noStateFolder
  /// A session name that is not one safe file name: `problem` says why ("is empty", ...).
  case badName(name: String, problem: String)
  /// The sessions folder's path is taken by something that is not a folder.
  case notAFolder(root: String)
  /// The sessions folder could not be listed.
  case cannotList(root: String, detail: String)
  /// No session has that name.
  case noSuchSession(name: String)
  /// A session's folder of other journals could not be removed.
  case cannotRemove(path: String, detail: String)

  public var description: String {
    switch self {
    case .noStateFolder:
      "cannot tell where sessions are kept: neither XDG_STATE_HOME nor HOME is an absolute path"
    case .badName(let name, let problem):
      "the session name \(SessionDirectory.quoted(name)) \(problem)"
    case .notAFolder(let root):
      "the sessions folder '\(root)' is not a folder"
    case .cannotList(let root, let detail):
      "cannot list the sessions folder '\(root)': \(detail)"
    case .noSuchSession(let name):
      "there is no session named \(SessionDirectory.quoted(name))"
    case .cannotRemove(let path, let detail):
      "cannot remove '\(path)': \(detail)"
    }
  }

  public var advice: String? {
    switch self {
    case .noStateFolder:
      "set XDG_STATE_HOME (or HOME) to a folder of yours"
    case .badName:
      "a session name is 1-\(SessionDirectory.maxNameBytes) bytes without '/', '..', a leading '.' or "
        + "control characters, e.g. 'counter-demo'"
    case .notAFolder:
      "move that file away, or set XDG_STATE_HOME"
    case .cannotList:
      nil
    case .noSuchSession:
      "list the saved sessions to see their names"
    case .cannotRemove:
      "remove it by hand"
    }
  }
}
