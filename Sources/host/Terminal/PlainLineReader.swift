import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// Lines read at a terminal without the line editor (`TERM=dumb`, or no libedit): the reader
/// echoes what is typed itself, so the console knows the half-typed line and draws it again,
/// with the prompt, under output that arrives while it is typed. Return ends the line,
/// Backspace drops a character, Ctrl-U the line, Ctrl-D on an empty line ends the input; no
/// other key moves the cursor.
final class PlainLineReader: WakeableReader {
  private struct Shared {
    var reading = false
    var interrupted = false
    var ended = false
  }

  private let shared = Locked(Shared())
  /// Keys typed while a line was handled (`typeAhead`), read before the terminal's.
  private let ahead = Locked<[UInt8]>([])
  /// The pipe other threads write a byte to, to wake the reader.
  let wakePipe: WakePipe

  /// Nil when no pipe can be made.
  init?() {
    guard let wakePipe = WakePipe() else { return nil }
    self.wakePipe = wakePipe
  }

  /// Reads one line after the prompt the console shows. Main thread.
  func read(_ console: Console) -> LineEditor.Input {
    let ended = shared.withLock { shared -> Bool in
      shared.reading = true
      shared.interrupted = false
      return shared.ended
    }
    defer { shared.withLock { $0.reading = false } }
    if ended { return .end }
    // The terminal's own echo and line editing are off while the line is read; signals stay.
    var saved = termios()
    let owned = tcgetattr(STDIN_FILENO, &saved) == 0
    if owned {
      var raw = QuietTerminal.quieted(saved)
      _ = tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }
    defer { if owned { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) } }
    var line: [UInt8] = []
    var input = ahead.withLock { typed in
      defer { typed = [] }
      return typed
    }
    while true {
      if !input.isEmpty, let result = take(&input, into: &line, console) {
        // Keys after the line (a paste of several) are the next read's.
        typeAhead(input)
        return result
      }
      var fds = [
        pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
      ]
      if poll(&fds, 2, -1) < 0 {
        if errno == EINTR { continue }
        return .end
      }
      if fds[1].revents != 0 {
        wakePipe.drain()
        let (interrupted, ended) = shared.withLock { shared in
          defer { shared.interrupted = false }
          return (shared.interrupted, shared.ended)
        }
        if ended {
          console.typed("", echo: "\n")
          return .end
        }
        if interrupted {
          // As in a shell: `^C` after the line, which is dropped.
          console.typed("", echo: "^C\n")
          return .cancelled
        }
      }
      guard fds[0].revents != 0 else { continue }
      var bytes = [UInt8](repeating: 0, count: 256)
      let count = Glibc.read(STDIN_FILENO, &bytes, bytes.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return line.isEmpty ? .end : .line(Self.text(line)) }
      input = Array(bytes[0..<count])
    }
  }

  /// Takes the keys of `input` into `line`, echoing them; the result once a key ends the read,
  /// leaving the keys after it in `input`.
  private func take(_ input: inout [UInt8], into line: inout [UInt8], _ console: Console) -> LineEditor.Input? {
    while !input.isEmpty {
      let byte = input.removeFirst()
      switch byte {
      case 10, 13:
        console.typed("", echo: "\n")
        return .line(Self.text(line))
      case 4 where line.isEmpty:
        console.typed("", echo: "\n")
        return .end
      case 8, 127:
        guard !line.isEmpty else { continue }
        // A whole UTF-8 character: its continuation bytes, then its lead.
        while let last = line.last, last & 0xC0 == 0x80 { line.removeLast() }
        if !line.isEmpty { line.removeLast() }
        console.typed(Self.text(line), echo: "\u{8} \u{8}")
      case 21:
        let erase = String(repeating: "\u{8} \u{8}", count: Self.text(line).count)
        line.removeAll()
        console.typed("", echo: erase)
      case 0..<32:
        continue
      default:
        line.append(byte)
        // A character is echoed once its last byte is in.
        if let character = Self.completedCharacter(at: line) {
          console.typed(Self.text(line), echo: character)
        }
      }
    }
    return nil
  }

  /// Keys typed while a line was handled: the next read takes them first. Any thread.
  func typeAhead(_ bytes: [UInt8]) { ahead.withLock { $0 += bytes } }

  func cancelReading() -> Bool {
    shared.withLock { shared -> Bool in
      if shared.reading { shared.interrupted = true }
      return shared.reading
    }
  }

  func markEnded() { shared.withLock { $0.ended = true } }

  private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

  /// The character `bytes` ends with, once all of its UTF-8 bytes are there; nil while one is
  /// still to come.
  static func completedCharacter(at bytes: [UInt8]) -> String? {
    guard let leadIndex = bytes.lastIndex(where: { $0 & 0xC0 != 0x80 }) else { return nil }
    let lead = bytes[leadIndex]
    let length =
      switch lead {
      case 0xC0...0xDF: 2
      case 0xE0...0xEF: 3
      case 0xF0...0xF7: 4
      default: 1
      }
    guard bytes.count - leadIndex >= length else { return nil }
    return text(Array(bytes[leadIndex...]))
  }
}
