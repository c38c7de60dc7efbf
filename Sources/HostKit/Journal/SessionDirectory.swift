import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The folder where named sessions live, one journal file `NAME.jsonl` per session.
///
/// `default(environment:)` picks `$XDG_STATE_HOME/featurehost` or `~/.local/state/featurehost`;
/// tests pass their own root. Nothing is created until `ensureExists()`.
public struct SessionDirectory: Sendable, Equatable {
  public static let fileExtension = "jsonl"
  public static let maxNameBytes = 100

  public let root: String

  public init(root: String) {
    self.root = root
  }

  /// The sessions folder for `environment`: `$XDG_STATE_HOME/featurehost` when that is an
  /// absolute path (the XDG rule), else `$HOME/.local/state/featurehost`.
  public static func `default`(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(HostError) -> SessionDirectory {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return SessionDirectory(root: "\(state)/featurehost")
    }
    if let home = environment["HOME"], home.hasPrefix("/") {
      return SessionDirectory(root: "\(home)/.local/state/featurehost")
    }
    throw HostError(SessionFailure.noStateFolder)
  }

  /// Checks a session name: 1-100 bytes, no '/', no "..", no leading '.', no control
  /// characters (NUL included), so that it is one safe file name and one line in a listing.
  public static func checkName(_ name: String) throws(HostError) {
    let problem: String?
    if name.isEmpty {
      problem = "is empty"
    } else if name.utf8.count > maxNameBytes {
      problem = "is \(name.utf8.count) bytes long"
    } else if name.contains("/") {
      problem = "contains '/'"
    } else if name.hasPrefix(".") {
      problem = "starts with '.'"
    } else if name.contains("..") {
      problem = "contains '..'"
    } else if name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
      problem = "contains a control character"
    } else {
      problem = nil
    }
    guard let problem else { return }
    var error = HostError(SessionFailure.badName(name: name, problem: problem))
    error.kind = .usage
    throw error
  }

  /// The journal file of session `name` (checked).
  public func path(for name: String) throws(HostError) -> String {
    try Self.checkName(name)
    return "\(root)/\(name).\(Self.fileExtension)"
  }

  /// Whether session `name` exists.
  public func contains(_ name: String) throws(HostError) -> Bool {
    let path = try path(for: name)
    return access(path, F_OK) == 0
  }

  /// Creates the folder (and missing parents) private to the user (mode 0700).
  public func ensureExists() throws(HostError) {
    try JournalFile.makeFolder(root, what: "create the sessions folder")
    var info = stat()
    guard stat(root, &info) == 0, info.st_mode & 0o170000 == 0o040000 else {
      throw HostError(SessionFailure.notAFolder(root: root))
    }
  }

  /// Every session, sorted by name: from each journal's header and a count of its action lines
  /// (no full check). A missing folder means no sessions.
  public func list() throws(HostError) -> [SessionSummary] {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: root)
    } catch {
      if access(root, F_OK) != 0 { return [] }
      throw HostError(SessionFailure.cannotList(root: root, detail: SystemReason.of(error, naming: root)))
    }
    let suffix = ".\(Self.fileExtension)"
    return names.sorted().compactMap { file -> SessionSummary? in
      guard file.hasSuffix(suffix), !file.hasPrefix(".") else { return nil }
      let name = String(file.dropLast(suffix.count))
      guard (try? Self.checkName(name)) != nil else { return nil }
      return SessionSummary.read(name: name, path: "\(root)/\(file)")
    }
  }

  /// Removes session `name`; refused while a host has it open.
  public func remove(_ name: String) throws(HostError) {
    let path = try path(for: name)
    let fd = open(path, O_RDWR | O_CLOEXEC)
    guard fd >= 0 else {
      if errno == ENOENT {
        throw HostError(SessionFailure.noSuchSession(name: name))
      }
      throw JournalFile.failure("open", path, errno)
    }
    defer { close(fd) }
    try JournalFile.lock(fd, path: path)
    guard unlink(path) == 0 else { throw JournalFile.failure("remove", path, errno) }
    // The journals of the other features it presented, and its navigation.
    let folder = "\(root)/\(name).d"
    if FileManager.default.fileExists(atPath: folder) {
      do {
        try FileManager.default.removeItem(atPath: folder)
      } catch {
        throw HostError(SessionFailure.cannotRemove(path: folder, detail: SystemReason.of(error, naming: folder)))
      }
    }
  }

  /// `'name'` with control characters escaped, so an error message stays one line.
  static func quoted(_ name: String) -> String {
    var text = ""
    for scalar in name.unicodeScalars {
      if scalar.value < 0x20 || scalar.value == 0x7F {
        text += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return "'\(text)'"
  }
}
