#if canImport(Glibc)
  import Glibc
#endif

/// The few POSIX calls the journals make, with errors as `JournalFailure`s that name the file.
enum JournalFile {
  static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

  /// A failed system call on `path` as an engine failure.
  static func failure(_ operation: String, _ path: String, _ code: Int32) -> HostError {
    HostError(JournalFailure.system(operation: operation, path: path, code: code))
  }

  /// Opens `path`, retrying on EINTR. O_NONBLOCK: a FIFO opens at once instead of waiting for a
  /// writer (`readAll` then refuses it); on a regular file it changes nothing.
  static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(HostError) -> Int32 {
    while true {
      let fd = Glibc.open(path, flags | O_CLOEXEC | O_NONBLOCK, mode)
      if fd >= 0 { return fd }
      let code = errno
      if code == EINTR { continue }
      throw failure("open", path, code)
    }
  }

  /// Takes the exclusive lock that marks a journal as in use by one host process.
  static func lock(_ fd: Int32, path: String) throws(HostError) {
    guard flock(fd, LOCK_EX | LOCK_NB) != 0 else { return }
    let code = errno
    if code == EWOULDBLOCK { throw HostError(JournalFailure.inUse(path: path)) }
    throw failure("lock", path, code)
  }

  /// Releases the lock, then closes. A child process being spawned at that moment still holds
  /// a copy of the descriptor until it execs; the lock belongs to the open file, so without the
  /// explicit unlock it would outlive the close for that instant.
  static func unlockAndClose(_ fd: Int32) {
    _ = flock(fd, LOCK_UN)
    _ = Glibc.close(fd)
  }

  /// The longest first line a journal may have: its header.
  static let maxHeaderBytes = 1 << 20

  /// Every byte of the file from its start, as it is at the time of the call. With `header`, line 1
  /// is read and checked first, so a file that is not a journal is refused after reading at most
  /// `maxHeaderBytes`, whatever its size. With `progress`, the file is read `chunkBytes` at a
  /// time and `progress` sees the bytes read so far after each chunk (`atEnd` false), then all of
  /// them (`atEnd` true): a check that throws stops the reading there, so a file is refused at its
  /// first wrong line without being read whole.
  static func readAll(
    _ fd: Int32, path: String, header: ((UnsafeRawBufferPointer) throws(HostError) -> Void)? = nil,
    progress: ((UnsafeBufferPointer<UInt8>, _ atEnd: Bool) throws(HostError) -> Void)? = nil
  ) throws(HostError) -> [UInt8] {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw failure("read", path, errno) }
    guard info.st_mode & 0o170000 == 0o100000 else {  // S_ISREG
      throw HostError(JournalFailure.notRegularFile(path: path))
    }
    let size = Int(info.st_size)
    if let header, size > 0 { try checkFirstLine(fd, path: path, size: size, header) }
    var failure: HostError?
    // Reserved whole, but only the pages read into are touched: a file refused early costs
    // the memory of what was read.
    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      guard let base = buffer.baseAddress else { return }
      while count < size {
        let want = progress == nil ? size - count : min(chunkBytes, size - count)
        let got = pread(fd, base + count, want, off_t(count))
        if got > 0 {
          count += got
        } else if got == 0 {
          break  // the file shrank since fstat: read what is there
        } else if errno != EINTR {
          failure = Self.failure("read", path, errno)
          return
        } else {
          continue
        }
        if let progress, count < size {
          do throws(HostError) {
            try progress(UnsafeBufferPointer(start: base, count: count), false)
          } catch {
            failure = error
            return
          }
        }
      }
    }
    if let failure { throw failure }
    try bytes.withUnsafeBufferPointer { buffer throws(HostError) in try progress?(buffer, true) }
    return bytes
  }

  /// How much `readAll` reads at a time when it checks as it goes.
  static let chunkBytes = 1 << 20

  /// Reads line 1 (at most `maxHeaderBytes`) and hands it to `check`; a longer line 1 is refused.
  private static func checkFirstLine(
    _ fd: Int32, path: String, size: Int, _ check: (UnsafeRawBufferPointer) throws(HostError) -> Void
  ) throws(HostError) {
    let count = min(size, maxHeaderBytes + 1)
    let prefix = try RegularFile.readStart(of: fd, count: count) { code in failure("read", path, code) }
    let end = prefix.firstIndex(of: JournalByte.newline) ?? prefix.count
    guard end <= maxHeaderBytes else {
      throw HostError(
        JournalFailure.damaged(
          path: path, line: 1, problem: "is longer than \(maxHeaderBytes) bytes: it is not a journal header"))
    }
    let result = prefix.withUnsafeBytes { raw in
      Result { () throws(HostError) in try check(UnsafeRawBufferPointer(rebasing: raw[..<end])) }
    }
    try result.get()
  }

  /// Writes all of `bytes` at `offset`, retrying partial writes and EINTR.
  static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int, path: String) throws(HostError) {
    let code = bytes.withUnsafeBytes { writeAll(fd, $0, at: offset) }
    guard code == 0 else { throw failure("write", path, code) }
  }

  /// Writes all of `bytes` at `offset`, retrying partial writes and EINTR.
  static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int, path: String) throws(HostError) {
    let code = writeAll(fd, bytes, at: offset)
    guard code == 0 else { throw failure("write", path, code) }
  }

  /// 0, or the `errno` of the write that failed.
  private static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer, at offset: Int) -> Int32 {
    guard let base = raw.baseAddress else { return 0 }
    var done = 0
    while done < raw.count {
      let wrote = pwrite(fd, base + done, raw.count - done, off_t(offset + done))
      if wrote >= 0 {
        done += wrote
      } else if errno != EINTR {
        return errno
      }
    }
    return 0
  }

  /// Makes the written data (and the file size) durable.
  static func syncData(_ fd: Int32, path: String) throws(HostError) {
    while fdatasync(fd) != 0 {
      if errno != EINTR { throw failure("sync", path, errno) }
    }
  }

  /// Makes a new directory entry in `directory` durable.
  static func syncDirectory(_ directory: String) throws(HostError) {
    let fd = try Self.open(directory, O_RDONLY | O_DIRECTORY)
    defer { close(fd) }
    while fsync(fd) != 0 {
      if errno != EINTR { throw failure("sync", directory, errno) }
    }
  }

  static func truncate(_ fd: Int32, to size: Int, path: String) throws(HostError) {
    while ftruncate(fd, off_t(size)) != 0 {
      if errno != EINTR { throw failure("truncate", path, errno) }
    }
  }

  /// Creates the folder `path` and its missing parents, private to the user (mode 0700);
  /// `what` names it in an error ("create the sessions folder").
  static func makeFolder(_ path: String, what: String = "create") throws(HostError) {
    var partial = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/", omittingEmptySubsequences: true) {
      partial += "/\(component)"
      if mkdir(partial, 0o700) != 0 && errno != EEXIST { throw failure(what, partial, errno) }
    }
  }

  /// The folder part of `path` ("." when it has none).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
