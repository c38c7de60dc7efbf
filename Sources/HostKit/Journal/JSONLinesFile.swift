#if canImport(Glibc)
  import Glibc
#endif

/// When a JSON Lines file commits by itself, and whether a commit syncs.
public struct GroupCommitLimits: Sendable, Equatable {
  public var maxLines: Int
  public var maxBytes: Int
  /// Whether a commit syncs to disk. Off only for a file that is deleted when the run ends:
  /// durability would buy nothing there.
  public var syncs: Bool

  public init(maxLines: Int = 4096, maxBytes: Int = 256 * 1024, syncs: Bool = true) {
    self.maxLines = maxLines
    self.maxBytes = maxBytes
    self.syncs = syncs
  }
}

/// Where a walk through a file's lines stands, between the chunks of a file read in chunks.
struct LineCursor {
  /// Where the next line starts.
  var offset: Int
  /// Its 1-based number.
  var number: Int
  /// Whether the last line walked ended in `\n`.
  var endsWithNewline = true
  /// The check of the line at `offset` while it is long and unfinished.
  var longLine = JSONPrefixCheck()
}

/// How a file's lines end, as checking them found it.
struct JSONLinesTail: Sendable, Equatable {
  /// Where the records end: the file size, or where a torn last line starts.
  var recordsEnd: Int
  /// A last line without `\n` that is not a record: left out, and cut before the next append.
  var tornTail: TornTail?
  /// False when the last record has no `\n` (complete, but written by something else).
  var endsWithNewline: Bool
}

/// One JSON Lines file held by this process: a header line, then records appended in durable
/// groups. The file type of both the feature journals and the navigation journal.
///
/// - `create` makes a new file that appears whole (with its header) or not at all: written aside,
///   synced, then linked into place, which never replaces an existing file.
/// - `create` and `open` hold an exclusive `flock` until `close`, so one host at a time appends.
///   A second opener gets `JournalFailure.inUse`, whether the file is being created or was.
/// - `pending` collects whole lines; `commit()` writes them with one `pwrite` and `fdatasync`s
///   (group commit); `lineAppended()` commits by itself when `limits` are reached.
/// - `open` cuts a torn last line (see `scanLines`) before anything is appended.
///
/// Not thread-safe: use it from one thread. A write or sync error (a full disk) cuts the partial
/// write back, keeps the lines pending, and is thrown by every `commit()` until one succeeds: each
/// commit retries, writing all pending lines again from the last durable size (a failed sync may
/// have lost pages the kernel had, so nothing after it is trusted). Appends go on meanwhile.
final class JSONLinesFile {
  let path: String
  let limits: GroupCommitLimits
  /// Lines appended but not yet committed: whole lines, each ending in `\n`. Writers encode
  /// straight into it, then call `lineAppended()`.
  /// Not checked for exclusivity at run time (this file is used from one thread, see above).
  @exclusivity(unchecked) var pending: [UInt8] = []
  /// Lines in `pending`.
  @exclusivity(unchecked) private(set) var pendingLines = 0

  /// `body` with `pending`: a writer that encodes a line in several steps does it in one access
  /// (each access to a class's property is checked at run time).
  func withPending<R, E: Error>(_ body: (inout [UInt8]) throws(E) -> R) throws(E) -> R { try body(&pending) }
  /// The file size after the last commit: where `pending` goes.
  private(set) var durableSize: Int
  private var fd: Int32
  /// The error of the last commit, while it has not succeeded since.
  private var failure: HostError? {
    didSet { isFailing = failure != nil }
  }
  /// Whether `close` ran.
  private var closed = false

  private init(fd: Int32, path: String, durableSize: Int, limits: GroupCommitLimits) {
    self.fd = fd
    self.path = path
    self.durableSize = durableSize
    self.limits = limits
    pending.reserveCapacity(limits.maxBytes + 4096)
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

  /// Creates the file at `path` holding only `header` (one line, `\n` included), durable before
  /// this returns, and locked. Throws `alreadyExists` when a file is there, or `inUse` when
  /// another process holds it (it may be creating it right now).
  static func create(at path: String, header: [UInt8], limits: GroupCommitLimits) throws(HostError)
    -> JSONLinesFile
  {
    let directory = JournalFile.directory(of: path)
    let name = path.split(separator: "/").last.map(String.init) ?? path
    var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
    guard fd >= 0 else {
      throw HostError(JournalFailure.system(operation: "create a journal in", path: directory, code: errno))
    }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    let temporary = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var linked = false
    do {
      defer {
        unlink(temporary)
        if !linked { Glibc.close(fd) }
      }
      // Locked before it has a name, so nobody can take it between the link and here.
      try JournalFile.lock(fd, path: path)
      try JournalFile.write(fd, header, at: 0, path: temporary)
      if limits.syncs { try JournalFile.syncData(fd, path: temporary) }
      guard link(temporary, path) == 0 else {
        let code = errno
        if code == EEXIST { throw existing(at: path) }
        throw HostError(JournalFailure.system(operation: "create", path: path, code: code))
      }
      linked = true
    }
    do throws(HostError) {
      if limits.syncs { try JournalFile.syncDirectory(directory) }
    } catch {
      JournalFile.unlockAndClose(fd)
      throw error
    }
    return JSONLinesFile(fd: fd, path: path, durableSize: header.count, limits: limits)
  }

  /// Why a file could not be created where one exists: another process holds it, or it is
  /// simply there.
  private static func existing(at path: String) -> HostError {
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return HostError(JournalFailure.alreadyExists(path: path)) }
    defer { JournalFile.unlockAndClose(fd) }
    if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
      return HostError(JournalFailure.inUse(path: path))
    }
    return HostError(JournalFailure.alreadyExists(path: path))
  }

  /// Opens the file at `path` to append: locks it, reads it (`progress` checks it as it is read,
  /// see `JournalFile.readAll`), hands its bytes to `check` (which says how the lines end, see
  /// `scanLines`), then cuts a torn tail or ends a last record
  /// without `\n`, so appends start on a fresh line. A file `check` refuses is left untouched.
  static func open<Contents>(
    at path: String, limits: GroupCommitLimits,
    header: ((UnsafeRawBufferPointer) throws(HostError) -> Void)? = nil,
    progress: ((UnsafeBufferPointer<UInt8>, _ atEnd: Bool) throws(HostError) -> Void)? = nil,
    check: ([UInt8]) throws(HostError) -> (Contents, JSONLinesTail)
  ) throws(HostError) -> (file: JSONLinesFile, contents: Contents) {
    let fd = try JournalFile.open(path, O_RDWR)
    var handedOver = false
    defer { if !handedOver { JournalFile.unlockAndClose(fd) } }
    try JournalFile.lock(fd, path: path)
    let (contents, tail) = try check(JournalFile.readAll(fd, path: path, header: header, progress: progress))
    var size = tail.recordsEnd
    if tail.tornTail != nil {
      try JournalFile.truncate(fd, to: size, path: path)
      try JournalFile.syncData(fd, path: path)
    } else if !tail.endsWithNewline {
      try JournalFile.write(fd, [JournalByte.newline], at: size, path: path)
      try JournalFile.syncData(fd, path: path)
      size += 1
    }
    handedOver = true
    return (JSONLinesFile(fd: fd, path: path, durableSize: size, limits: limits), contents)
  }

  // MARK: - Appending

  /// Throws once the file is closed.
  func checkUsable() throws(HostError) {
    if closed { throw failure ?? HostError(JournalFailure.closed(path: path)) }
  }

  /// Whether the last commit failed (and none succeeded since). Kept beside `failure` so the
  /// check after each line costs no copy of an error.
  private(set) var isFailing = false

  /// Counts a line the caller put in `pending`; commits when the limits are reached. While
  /// commits fail it does not retry (the caller's own commits do), so a burst costs no rewrites.
  func lineAppended() throws(HostError) {
    pendingLines += 1
    guard pendingLines >= limits.maxLines || pending.count >= limits.maxBytes, !isFailing else { return }
    // A failure stays in `failure`: the next explicit commit reports it.
    try? commit()
  }

  /// Writes the pending lines with one `pwrite` and syncs them: when this returns, they survive
  /// a crash or power loss. Cheap when nothing is pending.
  func commit() throws(HostError) {
    try checkUsable()
    guard !pending.isEmpty else {
      failure = nil
      return
    }
    do throws(HostError) {
      try JournalFile.write(fd, pending, at: durableSize, path: path)
      if limits.syncs { try JournalFile.syncData(fd, path: path) }
    } catch {
      // Cut a partial write back so the file ends on a whole line; a reopen cuts it otherwise.
      _ = ftruncate(fd, off_t(durableSize))
      failure = error
      throw error
    }
    durableSize += pending.count
    pending.removeAll(keepingCapacity: true)
    pendingLines = 0
    failure = nil
  }

  /// Ends the line that `pending` ends with (its start is there already) with `body` and then
  /// `end`, writing it straight to the file after the pending lines, and syncs: a commit. For a
  /// line larger than a group commit (a large state), which is so never copied. When the write
  /// fails, the line joins `pending` after all and is retried by every commit, as any line is.
  func appendLine(ending body: UnsafeRawBufferPointer, _ end: StaticString) {
    let tail = UnsafeRawBufferPointer(start: end.utf8Start, count: end.utf8CodeUnitCount)
    if !isFailing {
      do throws(HostError) {
        try JournalFile.write(fd, pending, at: durableSize, path: path)
        try JournalFile.write(fd, body, at: durableSize + pending.count, path: path)
        try JournalFile.write(fd, tail, at: durableSize + pending.count + body.count, path: path)
        if limits.syncs { try JournalFile.syncData(fd, path: path) }
        durableSize += pending.count + body.count + tail.count
        pending.removeAll(keepingCapacity: true)
        pendingLines = 0
        return
      } catch {
        // As a failed commit: cut back to whole lines; the next explicit commit reports it.
        _ = ftruncate(fd, off_t(durableSize))
        failure = error
      }
    }
    pending.append(contentsOf: body)
    pending.append(contentsOf: tail)
    pendingLines += 1
  }

  /// Moves the lines from byte `offset` (line `line`) to the end into a new file beside this one,
  /// durable, then cuts this file there: nothing is deleted, and appends go on after the lines
  /// before it. Returns the new file's path (`PATH.line-N.damaged`, numbered when taken).
  func setAside(from offset: Int, line: Int) throws(HostError) -> String {
    try commit()
    guard offset < durableSize else { return path }
    var rest = [UInt8](repeating: 0, count: durableSize - offset)
    var done = 0
    while done < rest.count {
      let got = rest.withUnsafeMutableBytes { raw in
        pread(fd, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(offset + done))
      }
      if got > 0 {
        done += got
      } else if got == 0 {
        break
      } else if errno != EINTR {
        throw JournalFile.failure("read", path, errno)
      }
    }
    var aside = "\(path).line-\(line).damaged"
    var number = 1
    var sideFD: Int32 = -1
    while sideFD < 0 {
      sideFD = Glibc.open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if sideFD >= 0 { break }
      let code = errno
      guard code == EEXIST || code == EINTR else { throw JournalFile.failure("create", aside, code) }
      if code == EEXIST {
        number += 1
        aside = "\(path).line-\(line).damaged-\(number)"
      }
    }
    defer { Glibc.close(sideFD) }
    try JournalFile.write(sideFD, Array(rest[..<done]), at: 0, path: aside)
    try JournalFile.syncData(sideFD, path: aside)
    try JournalFile.syncDirectory(JournalFile.directory(of: aside))
    try JournalFile.truncate(fd, to: offset, path: path)
    try JournalFile.syncData(fd, path: path)
    durableSize = offset
    return aside
  }

  /// Commits and closes the file, releasing the lock. Later calls throw `closed`.
  func close() throws(HostError) {
    guard fd >= 0 else { return }
    defer {
      JournalFile.unlockAndClose(fd)
      fd = -1
      closed = true
      failure = failure ?? HostError(JournalFailure.closed(path: path))
    }
    try commit()
  }

  // MARK: - Reading lines

  /// Walks the lines of `buffer` from byte `start` (line `number`, 1-based) to its end, with the
  /// torn-tail rule: a last line without `\n` that `recognize` refuses is what a crash in the
  /// middle of a write leaves, so it is reported in the tail and left out; a refused line
  /// anywhere else is an error made by `damaged`. `accept` sees each recognized line.
  ///
  /// `recognize` gets the line (without `\n`) and whether it is that unterminated last line.
  static func scanLines<Line>(
    _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, line number: Int, path: String,
    recognize: (UnsafeBufferPointer<UInt8>, _ isLast: Bool) throws(LineProblem) -> Line,
    accept: (Line, _ offset: Int, _ number: Int) throws(HostError) -> Void,
    damaged: (_ number: Int, LineProblem) -> HostError
  ) throws(HostError) -> JSONLinesTail {
    var cursor = LineCursor(offset: start, number: number)
    return try scanLines(
      buffer, cursor: &cursor, atEnd: true, path: path, recognize: recognize, accept: accept, damaged: damaged)
  }

  /// A line longer than this that has no end yet is checked as it comes in (`JSONPrefixCheck`), so a
  /// huge line that is not a record is refused at its first wrong byte, not once it is all read.
  static let longLineBytes = 1 << 20

  /// `scanLines` over a file read a chunk at a time: `buffer` is what has been read so far, and
  /// each call goes on from `cursor`. Before the end (`atEnd` false) it walks the lines that end
  /// in `\n` and checks a long unfinished one as far as it goes; at the end it walks the rest
  /// and returns how the lines end.
  ///
  /// A line longer than `longLineBytes` that cannot be the start of a JSON object is damaged even
  /// when it is the last one: what a crash leaves of such a line is the start of it.
  static func scanLines<Line>(
    _ buffer: UnsafeBufferPointer<UInt8>, cursor: inout LineCursor, atEnd: Bool, path: String,
    recognize: (UnsafeBufferPointer<UInt8>, _ isLast: Bool) throws(LineProblem) -> Line,
    accept: (Line, _ offset: Int, _ number: Int) throws(HostError) -> Void,
    damaged: (_ number: Int, LineProblem) -> HostError
  ) throws(HostError) -> JSONLinesTail {
    let count = buffer.count
    var tail = JSONLinesTail(recordsEnd: count, tornTail: nil, endsWithNewline: cursor.endsWithNewline)
    guard let base = buffer.baseAddress else { return tail }
    while cursor.offset < count {
      let offset = cursor.offset
      let end = lineEnd(base, from: offset, to: count)
      let isLast = end == count
      if isLast && end - offset > longLineBytes {
        let checked = offset + cursor.longLine.count
        if let wrong = cursor.longLine.check(UnsafeBufferPointer(start: base + checked, count: count - checked)) {
          let byte = base[offset + wrong]
          let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(hex(byte))"
          throw damaged(
            cursor.number,
            LineProblem(
              message: "is not JSON (invalid JSON at byte \(wrong): unexpected \(shown); "
                + "the line is \(atEnd ? "" : "at least ")\(count - offset) bytes long)"))
        }
      }
      if isLast && !atEnd { break }
      let line = UnsafeBufferPointer(start: base + offset, count: end - offset)
      let recognized: Line
      do throws(LineProblem) {
        recognized = try recognize(line, isLast)
      } catch {
        guard isLast else { throw damaged(cursor.number, error) }
        tail.tornTail = TornTail(path: path, line: cursor.number, offset: offset, byteCount: end - offset)
        tail.recordsEnd = offset
        return tail
      }
      try accept(recognized, offset, cursor.number)
      cursor.endsWithNewline = !isLast
      cursor.longLine = JSONPrefixCheck()
      cursor.offset = end + 1
      cursor.number += 1
    }
    tail.endsWithNewline = cursor.endsWithNewline
    return tail
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x\(digits[Int(byte >> 4)])\(digits[Int(byte & 0xF)])"
  }

  /// Where the line starting at `offset` ends: its `\n`, or `end`.
  static func lineEnd(_ base: UnsafePointer<UInt8>, from offset: Int, to end: Int) -> Int {
    guard let newline = memchr(base + offset, Int32(JournalByte.newline), end - offset) else {
      return end
    }
    return UnsafeRawPointer(newline) - UnsafeRawPointer(base)
  }
}
