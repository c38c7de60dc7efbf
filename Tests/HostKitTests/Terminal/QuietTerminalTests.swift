import Foundation
import Testing

@testable import host

#if canImport(Glibc)
  import Glibc
#endif

/// The terminal's own echo and line mode are off from before the prompt is drawn (libedit draws
/// it before it sets its own mode), and back as they were once the line is read.
@Suite struct QuietTerminalTests {
  /// A pseudo-terminal's two ends: the terminal (its slave end) and the end that types on it.
  final class Pair {
    let master: Int32
    let terminal: Int32

    init() throws {
      let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
      // TIOCSPTLCK and TIOCGPTN (<asm-generic/ioctls.h>), macros Swift does not import.
      var unlock: Int32 = 0
      var number: UInt32 = 0
      let opened =
        master >= 0 && ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0
      let terminal = opened ? open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC) : -1
      guard terminal >= 0 else {
        if master >= 0 { close(master) }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no pseudo-terminal: errno \(errno)"])
      }
      self.master = master
      self.terminal = terminal
    }

    var mode: termios {
      var mode = termios()
      _ = tcgetattr(terminal, &mode)
      return mode
    }

    deinit {
      close(terminal)
      close(master)
    }
  }

  @Test func aTerminalInLineModeIsQuietUntilRestoredWithItsSignalsKept() throws {
    let pair = try Pair()
    let before = pair.mode
    #expect(before.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == tcflag_t(ICANON | ECHO | ISIG))
    let quiet = QuietTerminal(pair.terminal)
    let during = pair.mode
    #expect(during.c_lflag & tcflag_t(ICANON | ECHO) == 0)
    // Ctrl-C still reaches the host's signal watcher.
    #expect(during.c_lflag & tcflag_t(ISIG) != 0)
    // Keys typed now are read one by one, unechoed.
    _ = "ab".withCString { write(pair.master, $0, 2) }
    // (In line mode nothing could be read before a line's end: poll, not a read that would block.)
    var readable = pollfd(fd: pair.terminal, events: Int16(POLLIN), revents: 0)
    try #require(poll(&readable, 1, 5_000) == 1, "a key typed could not be read alone")
    var byte: UInt8 = 0
    #expect(read(pair.terminal, &byte, 1) == 1 && byte == UInt8(ascii: "a"))
    var echoed = pollfd(fd: pair.master, events: Int16(POLLIN), revents: 0)
    #expect(poll(&echoed, 1, 50) == 0, "the terminal echoed what was typed")
    quiet.restore()
    let after = pair.mode
    #expect(after.c_lflag == before.c_lflag)
    #expect(after.c_iflag == before.c_iflag)
  }

  @Test func aTerminalNotInLineModeAndAFileAreLeftAsTheyAre() throws {
    let pair = try Pair()
    var raw = pair.mode
    raw.c_lflag &= ~tcflag_t(ICANON)
    raw.c_lflag |= tcflag_t(ECHO)
    _ = tcsetattr(pair.terminal, TCSANOW, &raw)
    let quiet = QuietTerminal(pair.terminal)
    #expect(pair.mode.c_lflag & tcflag_t(ECHO) != 0)
    quiet.restore()
    #expect(pair.mode.c_lflag == raw.c_lflag)
    let file = open("/dev/null", O_RDONLY | O_CLOEXEC)
    defer { close(file) }
    QuietTerminal(file).restore()
  }
}
