import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// Reads input lines from a file descriptor, each at most `limit` bytes: a longer line is skipped
/// as it streams by (never held whole) and answered with one error, so a 50 MB line costs what a
/// short one does. Not thread-safe: one reader per descriptor, on the input thread.
final class BoundedLineReader {
  /// The longest line `host run` takes by default.
  static let defaultLimit = RunSettingCatalogue.maxLineBytes.defaultValue
  private static let chunk = 64 * 1024

  let limit: Int
  private let fd: Int32
  /// Holds at most one line under the limit and one chunk: `limit + chunk + 1` bytes.
  private let storage: UnsafeMutableRawBufferPointer
  /// Bytes held in `storage`.
  private var count = 0
  /// Where the unread bytes start.
  private var start = 0
  /// Where the search for the next `\n` goes on: the bytes before it hold none.
  private var scanned = 0
  private var ended = false
  /// Lines read so far, for messages.
  private(set) var lineNumber = 0

  init(fd: Int32 = STDIN_FILENO, limit: Int = defaultLimit) {
    self.fd = fd
    self.limit = limit
    storage = .allocate(byteCount: limit + Self.chunk + 1, alignment: 1)
  }

  deinit { storage.deallocate() }

  /// The next line without its `\n` (invalid UTF-8 repaired), an error for a line over the
  /// limit, or nil at the end of input.
  func next() -> Result<String, HostError>? {
    var skipped = 0
    while true {
      if let newline = newlineIndex() {
        let length = newline - start
        let line = UnsafeRawBufferPointer(rebasing: storage[start..<newline])
        start = newline + 1
        scanned = start
        lineNumber += 1
        if skipped > 0 || length > limit { return .failure(tooLong(skipped + length)) }
        return .success(String(decoding: line, as: UTF8.self))
      }
      if count - start > limit {
        // Over the limit already: drop what is held and keep counting until the newline.
        skipped += count - start
        count = 0
        start = 0
        scanned = 0
      }
      if ended {
        let rest = count - start
        guard rest > 0 || skipped > 0 else { return nil }
        let line = UnsafeRawBufferPointer(rebasing: storage[start..<count])
        count = 0
        start = 0
        scanned = 0
        lineNumber += 1
        if skipped > 0 || rest > limit { return .failure(tooLong(skipped + rest)) }
        return .success(String(decoding: line, as: UTF8.self))
      }
      fill()
    }
  }

  /// The index of the first `\n` from `scanned` on, or nil (then every held byte is scanned).
  private func newlineIndex() -> Int? {
    guard scanned < count, let base = storage.baseAddress else { return nil }
    guard let hit = memchr(base + scanned, Int32(UInt8(ascii: "\n")), count - scanned) else {
      scanned = count
      return nil
    }
    return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
  }

  /// Reads what the descriptor has (up to one chunk), after moving the unread bytes to the front.
  private func fill() {
    guard let base = storage.baseAddress else { return }
    if start > 0 {
      memmove(base, base + start, count - start)
      count -= start
      scanned -= start
      start = 0
    }
    while true {
      let got = read(fd, base + count, min(Self.chunk, storage.count - count))
      if got > 0 {
        count += got
        return
      }
      if got < 0 && errno == EINTR { continue }
      ended = true
      return
    }
  }

  private func tooLong(_ bytes: Int) -> HostError { Self.tooLong(line: lineNumber, bytes: bytes, limit: limit) }

  /// The error for input line `line` of `bytes` bytes, over `limit`.
  static func tooLong(line: Int, bytes: Int, limit: Int) -> HostError {
    HostError(
      "input line \(line) is \(bytes) bytes, more than the \(limit) a line may have; it was skipped",
      help: "an action or a command fits on one short line; a big state goes in a file (':load FILE'), "
        + "or raise the limit with --max-line-bytes")
  }
}
