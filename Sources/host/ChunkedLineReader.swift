#if canImport(Glibc)
  import Glibc
#endif

/// Reads lines from a file descriptor in large chunks (one `read` for many lines), for input
/// that is not a terminal. A line longer than `maximumLineLength` bytes is not kept whole: it is
/// skipped up to its end and reported as `.tooLong`, so one huge line cannot exhaust memory.
struct ChunkedLineReader {
  enum Line: Equatable {
    /// A line without its newline (and without a carriage return before it).
    case text(String)
    /// A line of `length` bytes, over the limit, skipped.
    case tooLong(length: Int)
    /// The wake descriptor was written to before a whole line came: the caller looks around and
    /// asks again; what was read so far is kept.
    case woken
  }

  let descriptor: Int32
  /// Readable when another thread wants the reader back (`Line.woken`); -1 for none.
  let wake: Int32
  let maximumLineLength: Int
  private var buffer: [UInt8]
  private var start = 0
  private var end = 0
  private var atEnd = false
  private var woken = false
  private var skippedBeforeWake = 0

  init(descriptor: Int32, maximumLineLength: Int, chunkSize: Int = 64 * 1024, wake: Int32 = -1) {
    precondition(maximumLineLength > 0 && chunkSize > 0, "a line and a chunk hold at least one byte")
    self.descriptor = descriptor
    self.wake = wake
    self.maximumLineLength = maximumLineLength
    buffer = [UInt8](repeating: 0, count: chunkSize)
  }

  /// The next line, or nil at the end of input. A last line without a newline counts.
  mutating func next() -> Line? {
    // A wake in the middle of a long line keeps what was skipped of it for the next call.
    var skipped = skippedBeforeWake
    skippedBeforeWake = 0
    while true {
      if let newline = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
        let lineEnd = newline > start && buffer[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
        let length = lineEnd - start
        defer { start = newline + 1 }
        if skipped > 0 || length > maximumLineLength { return .tooLong(length: skipped + length) }
        return .text(String(decoding: buffer[start..<lineEnd], as: UTF8.self))
      }
      // No newline in what is buffered.
      if end - start > maximumLineLength {
        skipped += end - start
        start = end
      }
      if atEnd {
        guard start < end || skipped > 0 else { return nil }
        let length = end - start
        defer { start = end }
        if skipped > 0 || length > maximumLineLength { return .tooLong(length: skipped + length) }
        return .text(String(decoding: buffer[start..<end], as: UTF8.self))
      }
      fill()
      if woken {
        woken = false
        skippedBeforeWake = skipped
        return .woken
      }
    }
  }

  /// Moves what is left to the front, grows the buffer when it is full, and reads once more.
  private mutating func fill() {
    if start > 0 {
      buffer.withUnsafeMutableBytes { bytes in
        guard let base = bytes.baseAddress else { return }
        memmove(base, base + start, end - start)
      }
      end -= start
      start = 0
    }
    if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
    if wake >= 0 && !waitForInput() { return }
    let count = buffer.withUnsafeMutableBytes { bytes in
      read(descriptor, bytes.baseAddress! + end, bytes.count - end)
    }
    if count > 0 {
      end += count
    } else if count == 0 || errno != EINTR {
      atEnd = true
    }
  }

  /// Waits until the input or the wake descriptor is readable; false (and `woken`, the wake
  /// drained) when only the wake is.
  private mutating func waitForInput() -> Bool {
    var fds = [
      pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    while poll(&fds, 2, -1) < 0 && errno == EINTR {}
    if fds[0].revents != 0 { return true }
    guard fds[1].revents != 0 else { return true }
    var drained = [UInt8](repeating: 0, count: 64)
    _ = read(wake, &drained, drained.count)
    woken = true
    return false
  }
}
