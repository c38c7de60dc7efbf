#if canImport(Glibc)
  import Glibc
#endif

/// Reads and writes the files a user names (states, flows, transcripts) with POSIX calls: a
/// folder, a FIFO or a device is refused before anything blocks on it, the size is bounded before
/// it is read, and every error is one line naming the path and the reason (`FileFailure`).
public enum RegularFile {
  /// The most any such file may hold: 64 MiB.
  public static let defaultLimit = 64 << 20

  /// The whole file at `path` as UTF-8 text, at most `limit` bytes.
  public static func readText(_ path: String, limit: Int = defaultLimit) throws(HostError) -> String {
    let bytes = try read(path, limit: limit)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw HostError(FileFailure.notText(path: path))
    }
    return text
  }

  /// Every byte of the regular file at `path`, at most `limit`.
  public static func read(_ path: String, limit: Int = defaultLimit) throws(HostError) -> [UInt8] {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
    let fd = try open(path, O_RDONLY | O_NONBLOCK)
    defer { close(fd) }
    let size = try regularSize(fd, path: path)
    guard size <= limit else { throw HostError(FileFailure.tooLarge(path: path, size: size, limit: limit)) }
    return try readStart(of: fd, count: size) { code in
      HostError(FileFailure.system(operation: "read", path: path, code: code))
    }
  }

  /// The first `count` bytes of the open file `fd`, fewer when it ends sooner (it may shrink
  /// after `fstat`), read with `pread` from offset 0 and retried on `EINTR`.
  ///
  /// - Throws: what `failure` makes of the `errno` of a read that failed.
  package static func readStart(of fd: Int32, count: Int, failure: (Int32) -> HostError) throws(HostError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var got = 0
    while got < count {
      let read = bytes.withUnsafeMutableBytes { raw in
        pread(fd, raw.baseAddress.map { $0 + got }, count - got, off_t(got))
      }
      if read > 0 {
        got += read
      } else if read == 0 {
        break
      } else if errno != EINTR {
        throw failure(errno)
      }
    }
    if got < count { bytes.removeSubrange(got...) }
    return bytes
  }

  /// What kind of file `mode` (from `stat`) is, in words, or nil for a regular file.
  public static func kind(of mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: nil
    case S_IFDIR: "a folder"
    case S_IFIFO: "a FIFO"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    default: "not a file"
    }
  }

  /// Why `path` cannot be read as a regular file (missing, a folder, a FIFO...), or nil when it
  /// can. Follows symbolic links; never opens the file.
  public static func problem(at path: String) -> HostError? {
    var info = stat()
    guard stat(path, &info) == 0 else {
      return HostError(FileFailure.system(operation: "read", path: path, code: errno))
    }
    guard let kind = kind(of: info.st_mode) else { return nil }
    return HostError(FileFailure.notRegular(path: path, kind: kind))
  }

  /// Writes `text` to `path` whole or not at all, readable by the user only: written aside in the
  /// same folder, synced, then moved into place. An existing file is replaced only with `replacing`; `guarding` refuses
  /// paths in the sessions folder and session journals, wherever they are.
  public static func write(
    _ text: String, to path: String, replacing: Bool, guarding sessions: String?
  ) throws(HostError) {
    let folder = directory(of: path)
    let resolvedFolder = try resolved(folder, path: path)
    let name = path.split(separator: "/").last.map(String.init) ?? path
    if let sessions, let root = realpathString(sessions) {
      let target = (resolvedFolder == "/" ? "" : resolvedFolder) + "/" + name
      let inside = resolvedFolder == root || resolvedFolder.hasPrefix(root + "/")
      let resolvedTarget = realpathString(target) ?? target
      if inside || resolvedTarget.hasPrefix(root + "/") {
        throw HostError(FileFailure.inStateFolder(path: path, folder: sessions))
      }
    }
    var info = stat()
    if stat(path, &info) == 0 {
      if let kind = kind(of: info.st_mode) { throw HostError(FileFailure.notRegular(path: path, kind: kind)) }
      if isJournal(path) { throw HostError(FileFailure.isJournal(path: path)) }
      if !replacing { throw HostError(FileFailure.exists(path: path)) }
    }
    let code = place(Array(text.utf8), at: path, replacing: replacing, syncs: true)
    guard code == 0 else {
      if code == EEXIST { throw HostError(FileFailure.exists(path: path)) }
      throw HostError(FileFailure.system(operation: "write", path: path, code: code))
    }
  }

  /// Writes `bytes` to a new file beside `path` (hidden, readable by the user only), with
  /// `syncs` synced, then moves it to `path`: `rename`, or with `replacing` false `link`, which
  /// never replaces (`EEXIST`). A reader sees the old file or the new one whole, never a part.
  /// Returns 0, or the `errno` of what failed; nothing is left aside.
  @discardableResult
  package static func place(_ bytes: [UInt8], at path: String, replacing: Bool, syncs: Bool) -> Int32 {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    var template = Array("\(directory(of: path))/.\(name).XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
    guard fd >= 0 else { return errno }
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    defer { unlink(temporary) }
    var failure: Int32 = 0
    var done = 0
    while done < bytes.count && failure == 0 {
      let wrote = bytes.withUnsafeBytes { raw in
        pwrite(fd, raw.baseAddress.map { $0 + done }, raw.count - done, off_t(done))
      }
      if wrote >= 0 { done += wrote } else if errno != EINTR { failure = errno }
    }
    if failure == 0 && syncs && fsync(fd) != 0 { failure = errno }
    close(fd)
    guard failure == 0 else { return failure }
    // link() never replaces: a file that appeared since the caller looked is left alone.
    return (replacing ? rename(temporary, path) : link(temporary, path)) == 0 ? 0 : errno
  }

  // MARK: - Helpers

  package static func open(_ path: String, _ flags: Int32) throws(HostError) -> Int32 {
    while true {
      let fd = Glibc.open(path, flags | O_CLOEXEC)
      if fd >= 0 { return fd }
      if errno != EINTR { throw HostError(FileFailure.system(operation: "read", path: path, code: errno)) }
    }
  }

  /// The size of the regular file open as `fd`; anything else is refused.
  package static func regularSize(_ fd: Int32, path: String) throws(HostError) -> Int {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw HostError(FileFailure.system(operation: "read", path: path, code: errno)) }
    if let kind = kind(of: info.st_mode) { throw HostError(FileFailure.notRegular(path: path, kind: kind)) }
    return Int(info.st_size)
  }

  /// Whether the file at `path` starts as a session journal (a feature's or the navigation's).
  package static func isJournal(_ path: String) -> Bool {
    let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var start = [UInt8](repeating: 0, count: 4096)
    let got = start.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard got > 0 else { return false }
    let line = start[..<got].prefix { $0 != UInt8(ascii: "\n") }
    let text = String(decoding: line, as: UTF8.self)
    return text.contains(#""journal":"featurehost"#)
  }

  private static func resolved(_ folder: String, path: String) throws(HostError) -> String {
    guard let real = realpathString(folder) else {
      throw HostError(FileFailure.system(operation: "write", path: path, code: errno))
    }
    return real
  }

  private static func realpathString(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }

  package static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
