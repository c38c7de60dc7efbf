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
  }

  let descriptor: Int32
  let maximumLineLength: Int
  private var buffer: [UInt8]
  private var start = 0
  private var end = 0
  private var atEnd = false

  init(descriptor: Int32, maximumLineLength: Int, chunkSize: Int = 64 * 1024) {
    precondition(maximumLineLength > 0 && chunkSize > 0, "a line and a chunk hold at least one byte")
    self.descriptor = descriptor
    self.maximumLineLength = maximumLineLength
    buffer = [UInt8](repeating: 0, count: chunkSize)
  }

  /// The next line, or nil at the end of input. A last line without a newline counts.
  mutating func next() -> Line? {
    var skipped = 0
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
    let count = buffer.withUnsafeMutableBytes { bytes in
      read(descriptor, bytes.baseAddress! + end, bytes.count - end)
    }
    if count > 0 {
      end += count
    } else if count == 0 || errno != EINTR {
      atEnd = true
    }
  }
}
