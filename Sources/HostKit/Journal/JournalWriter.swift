import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// Appends records to a journal and makes them durable in groups.
///
/// `append` only buffers a line; `commit()` writes the buffer with one `pwrite` and then
/// `fdatasync`s, so one sync covers every line since the last commit (group commit). Call
/// `commit()` before showing the user a view: an action whose view was seen is then on disk. The
/// writer also commits by itself when `Limits` are reached. It assigns seqs (1, 2, 3, ...) and
/// holds an exclusive `flock` on the file, so two hosts never append to one journal.
///
/// Not thread-safe: use it from one thread (the store's). After any write or sync error every
/// later call throws that error: the file keeps what earlier commits made durable (a partial
/// write is cut back, or reads as a torn tail), and opening it again restores from there.
public final class JournalWriter: @unchecked Sendable {
  /// When `append` commits by itself. The store's own commits (before each view) keep the
  /// promise; these only bound the buffer and, under a burst, how often it syncs.
  public struct Limits: Sendable, Equatable {
    public var maxLines: Int
    public var maxBytes: Int
    /// Whether a commit syncs to disk. Off only for a journal that is deleted when the run ends
    /// (a run without --session, kept for time travel): durability would buy nothing there.
    public var syncs: Bool

    public init(maxLines: Int = 4096, maxBytes: Int = 256 * 1024, syncs: Bool = true) {
      self.maxLines = maxLines
      self.maxBytes = maxBytes
      self.syncs = syncs
    }
  }

  public let path: String
  public let header: JournalHeader
  public let limits: Limits
  public var snapshotPolicy: SnapshotPolicy
  /// The seq of the last action or travel appended (0 before any).
  public private(set) var lastSeq: Int
  /// Actions appended since the last snapshot or travel.
  public private(set) var actionsSinceState: Int
  /// Lines appended but not yet committed.
  public private(set) var pendingLines = 0

  private var fd: Int32
  private var buffer: [UInt8] = []
  /// The file size after the last commit: where the buffer goes.
  private var durableSize: Int
  private var failure: HostError?

  private init(
    fd: Int32, path: String, header: JournalHeader, lastSeq: Int, actionsSinceState: Int,
    durableSize: Int, policy: SnapshotPolicy, limits: Limits
  ) {
    self.fd = fd
    self.path = path
    self.header = header
    self.lastSeq = lastSeq
    self.actionsSinceState = actionsSinceState
    self.durableSize = durableSize
    self.snapshotPolicy = policy
    self.limits = limits
    buffer.reserveCapacity(limits.maxBytes + 4096)
  }

  /// Commits what is pending (errors cannot be reported here: call `close()` to see them) and
  /// releases the lock.
  deinit {
    if fd >= 0 {
      try? commit()
      JournalFile.unlockAndClose(fd)
    }
  }

  // MARK: - Opening

  /// Creates a new journal at `path` holding only `header`, durable before this returns. The
  /// file appears whole or not at all (written aside, then linked into place); an existing file
  /// is never replaced.
  public static func create(
    at path: String, header: JournalHeader, policy: SnapshotPolicy = .default,
    limits: Limits = Limits()
  ) throws(HostError) -> JournalWriter {
    let line = try header.encodedLine()
    let directory = JournalFile.directory(of: path)
    let name = path.split(separator: "/").last.map(String.init) ?? path
    var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
    guard fd >= 0 else { throw JournalFile.failure("create a journal in", directory, errno) }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    let temporary = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var linked = false
    do {
      defer {
        unlink(temporary)
        if !linked { Glibc.close(fd) }
      }
      try JournalFile.lock(fd, path: path)
      try JournalFile.write(fd, line, at: 0, path: temporary)
      try JournalFile.syncData(fd, path: temporary)
      guard link(temporary, path) == 0 else {
        let code = errno
        if code == EEXIST {
          throw HostError(
            "a journal already exists at '\(path)'; it was left as it is",
            help:
              "restore it (open it for append), choose another session name, or remove the session")
        }
        throw JournalFile.failure("create", path, code)
      }
      linked = true
    }
    do throws(HostError) {
      try JournalFile.syncDirectory(directory)
    } catch {
      Glibc.close(fd)
      throw error
    }
    return JournalWriter(
      fd: fd, path: path, header: header, lastSeq: 0, actionsSinceState: 0, durableSize: line.count,
      policy: policy, limits: limits)
  }

  /// Opens the journal at `path` for appending: locks it, reads and checks it (see `Journal`),
  /// then cuts a torn tail so that appends start on a fresh line. The returned journal has the
  /// restore point; its `tornTail` says what was cut (tell the user). A journal that does not
  /// check out is left untouched.
  public static func openForAppend(
    at path: String, feature: String?, policy: SnapshotPolicy = .default, limits: Limits = Limits()
  ) throws(HostError) -> (writer: JournalWriter, journal: Journal) {
    let fd = try JournalFile.open(path, O_RDWR)
    var handedOver = false
    defer { if !handedOver { Glibc.close(fd) } }
    try JournalFile.lock(fd, path: path)
    let journal = try Journal(
      bytes: JournalFile.readAll(fd, path: path), path: path, feature: feature)
    var size = journal.recordsEnd
    if journal.tornTail != nil {
      try JournalFile.truncate(fd, to: size, path: path)
      try JournalFile.syncData(fd, path: path)
    } else if !journal.endsWithNewline {
      try JournalFile.write(fd, [JournalByte.newline], at: size, path: path)
      try JournalFile.syncData(fd, path: path)
      size += 1
    }
    let writer = JournalWriter(
      fd: fd, path: path, header: journal.header, lastSeq: journal.lastSeq,
      actionsSinceState: journal.actionsSinceState, durableSize: size, policy: policy,
      limits: limits)
    handedOver = true
    return (writer, journal)
  }

  // MARK: - Appending

  /// Whether the snapshot policy wants a snapshot now.
  public var snapshotDue: Bool { snapshotPolicy.isDue(actionsSinceState: actionsSinceState) }

  /// Appends an applied action (a JSON object) and returns its seq.
  @discardableResult
  public func append(action json: String, source: ActionSource) throws(HostError) -> Int {
    if let failure { throw failure }
    let seq = lastSeq + 1
    let lineStart = buffer.count
    appendLiteral(#"{"action":"#)
    try appendPayload(json, what: "action", validate: false, lineStart: lineStart)
    appendLiteral(#","seq":"#)
    appendNumber(seq)
    appendLiteral(#","source":""#)
    appendLiteral(Self.name(of: source))
    appendLiteral("\"}\n")
    lastSeq = seq
    actionsSinceState += 1
    try lineAppended()
    return seq
  }

  /// Appends a snapshot: `state` (a JSON object) is the state after `lastSeq`.
  public func append(snapshot state: String) throws(HostError) {
    if let failure { throw failure }
    let lineStart = buffer.count
    appendLiteral(#"{"seq":"#)
    appendNumber(lastSeq)
    appendLiteral(#","state":"#)
    try appendPayload(state, what: "state", validate: true, lineStart: lineStart)
    appendLiteral("}\n")
    actionsSinceState = 0
    try lineAppended()
  }

  /// Appends a travel: the current state became `state`, the state after seq `to` (nil only for
  /// `load`). Returns the travel's own seq. Undone actions stay in the journal.
  @discardableResult
  public func append(travel kind: TravelKind, to: Int?, state: String) throws(HostError) -> Int {
    if let failure { throw failure }
    let seq = lastSeq + 1
    switch (kind, to) {
    case (.load, nil): break
    case (.load, .some):
      throw HostError("a load travel has no seq to travel to", help: "pass to: nil for .load")
    case (_, .some(let to)) where to >= 0 && to < seq: break
    default:
      throw HostError(
        "cannot \(kind.rawValue) to seq \(to.map(String.init) ?? "nil") in journal '\(path)'",
        help: "travel to a seq from 0 to \(lastSeq)")
    }
    let lineStart = buffer.count
    appendLiteral(#"{"seq":"#)
    appendNumber(seq)
    appendLiteral(#","state":"#)
    try appendPayload(state, what: "state", validate: true, lineStart: lineStart)
    if let to {
      appendLiteral(#","to":"#)
      appendNumber(to)
    }
    appendLiteral(#","travel":""#)
    appendLiteral(Self.name(of: kind))
    appendLiteral("\"}\n")
    lastSeq = seq
    actionsSinceState = 0
    try lineAppended()
    return seq
  }

  /// Writes the pending lines with one `pwrite` and syncs them: when this returns, they survive
  /// a crash or power loss. Cheap when nothing is pending.
  public func commit() throws(HostError) {
    if let failure { throw failure }
    guard !buffer.isEmpty else { return }
    do throws(HostError) {
      try JournalFile.write(fd, buffer, at: durableSize, path: path)
      if limits.syncs { try JournalFile.syncData(fd, path: path) }
    } catch {
      // Cut a partial write back so the file ends on a whole line; a reopen cuts it otherwise.
      _ = ftruncate(fd, off_t(durableSize))
      failure = error
      throw error
    }
    durableSize += buffer.count
    buffer.removeAll(keepingCapacity: true)
    pendingLines = 0
  }

  /// Commits and closes the file (releasing the lock). Later calls throw.
  public func close() throws(HostError) {
    guard fd >= 0 else { return }
    defer {
      JournalFile.unlockAndClose(fd)
      fd = -1
      failure = failure ?? HostError("journal '\(path)' is closed", help: "open it again to append")
    }
    try commit()
  }

  // MARK: - Encoding

  private func lineAppended() throws(HostError) {
    pendingLines += 1
    if pendingLines >= limits.maxLines || buffer.count >= limits.maxBytes { try commit() }
  }

  /// Appends `json` as is when it is one line that looks like an object (and, with `validate`,
  /// parses); otherwise its compact form, so that a record is always one line.
  private func appendPayload(_ json: String, what: String, validate: Bool, lineStart: Int)
    throws(HostError)
  {
    // Checked and copied in one pass over the bytes: this is the hot path.
    let appended =
      json.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
        guard let base = bytes.baseAddress, bytes.count >= 2, bytes[0] == JournalByte.openBrace,
          bytes[bytes.count - 1] == JournalByte.closeBrace,
          memchr(base, Int32(JournalByte.newline), bytes.count) == nil
        else { return false }
        if validate && (try? JSONValue.parse(bytes: UnsafeRawBufferPointer(bytes))) == nil {
          return false
        }
        buffer.append(contentsOf: bytes)
        return true
      } ?? false
    if appended { return }
    guard let line = JournalRecord.oneLine(json) else {
      // Leave the buffer as it was: drop the start of the line this call began.
      buffer.removeSubrange(lineStart...)
      throw HostError(
        "cannot journal the \(what) \(json): it is not a JSON object",
        help: "a feature's actions and states are JSON objects; this is a bug in the feature")
    }
    buffer.append(contentsOf: line.utf8)
  }

  private func appendLiteral(_ literal: StaticString) {
    buffer.append(
      contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  private static func name(of source: ActionSource) -> StaticString {
    switch source {
    case .user: "user"
    case .effect: "effect"
    case .feedback: "feedback"
    case .lifecycle: "lifecycle"
    case .navigation: "navigation"
    }
  }

  private static func name(of kind: TravelKind) -> StaticString {
    switch kind {
    case .undo: "undo"
    case .redo: "redo"
    case .goto: "goto"
    case .load: "load"
    }
  }

  /// Appends a non-negative number's decimal digits.
  private func appendNumber(_ value: Int) {
    var rest = value
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = JournalByte.asciiZero &+ UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
      } while rest > 0
      buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }
}

extension JournalRecord {
  /// The text the journal stores for `json`: `json` itself when it is one line from `{` to `}`,
  /// otherwise its compact form (a C plugin may put newlines between tokens); nil when it is not
  /// a JSON object. Replay compares a reproduced snapshot with a recorded one after this.
  public static func oneLine(_ json: String) -> String? {
    guard let value = try? JSONValue.parse(json), case .object = value else { return nil }
    let utf8 = json.utf8
    let isOneLine =
      utf8.first == JournalByte.openBrace && utf8.last == JournalByte.closeBrace
      && !utf8.contains(JournalByte.newline)
    return isOneLine ? json : value.serialized()
  }
}
