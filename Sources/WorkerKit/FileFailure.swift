#if canImport(Glibc)
  import Glibc
#endif

/// Why a file given by the user (a state, a flow, a transcript) could not be read or written.
/// Every message names the path and the reason in one line.
public enum FileFailure: EngineFailure, Equatable {
  /// A system call failed: `operation` is "open", "read", "write", ...; `code` is the errno.
  case system(operation: String, path: String, code: Int32)
  /// The path names a folder, a FIFO, a device or a socket (`kind`), not a regular file.
  case notRegular(path: String, kind: String)
  /// The file is larger than the reader takes.
  case tooLarge(path: String, size: Int, limit: Int)
  /// The file is not UTF-8 text.
  case notText(path: String)
  /// A write would land in the folder where sessions live (`folder`).
  case inStateFolder(path: String, folder: String)
  /// A write would replace a session journal.
  case isJournal(path: String)
  /// A write would replace an existing file, and replacing was not asked for.
  case exists(path: String)

  public var description: String {
    switch self {
    case .system(let operation, let path, let code):
      "cannot \(operation) '\(path)': \(String(cString: strerror(code)))"
    case .notRegular(let path, let kind): "'\(path)' is \(kind), not a regular file"
    case .tooLarge(let path, let size, let limit):
      "'\(path)' is \(size) bytes, more than the \(limit) bytes it may have"
    case .notText(let path): "'\(path)' is not UTF-8 text"
    case .inStateFolder(let path, let folder):
      "'\(path)' is in the folder where sessions live ('\(folder)'); nothing is written there but journals"
    case .isJournal(let path): "'\(path)' is a session journal; it was left as it is"
    case .exists(let path): "'\(path)' exists; it was left as it is"
    }
  }

  public var advice: String? {
    switch self {
    case .system(_, _, let code) where code == ENOENT: "check the path"
    case .system: nil
    case .notRegular: "give the path of a regular file"
    case .tooLarge, .notText: "check this is the file you meant"
    case .inStateFolder, .isJournal: "choose a file outside the state folder"
    case .exists: "choose another file, or ask explicitly to replace it"
    }
  }
}
