#if canImport(Glibc)
  import Glibc
#endif

/// The terminal without its own echo and line mode from before a prompt is drawn until the line
/// is read. libedit draws its prompt first and sets its mode after: keys typed in between were
/// echoed by the terminal and then again by the editor, and a Ctrl-C among them showed as `^C`
/// before the host had taken it, so keys typed after it could land in the line it then dropped.
/// Signals stay (Ctrl-C still reaches the host's watcher). Main thread.
struct QuietTerminal {
  private let descriptor: Int32
  private var saved = termios()
  private let owned: Bool

  /// Quiets `descriptor` (stdin) when it is a terminal in line mode; else leaves it as it is.
  init(_ descriptor: Int32 = STDIN_FILENO) {
    self.descriptor = descriptor
    owned = tcgetattr(descriptor, &saved) == 0 && saved.c_lflag & tcflag_t(ICANON) != 0
    guard owned else { return }
    var quiet = Self.quieted(saved)
    // TCSANOW, not TCSAFLUSH: keys typed ahead are the next line's.
    _ = tcsetattr(descriptor, TCSANOW, &quiet)
  }

  /// `mode` without echo and line mode, read a byte at a time without a timer; signals kept.
  static func quieted(_ mode: termios) -> termios {
    var quiet = mode
    quiet.c_lflag &= ~tcflag_t(ICANON | ECHO)
    withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    return quiet
  }

  /// The terminal's mode as it was. (libedit, ending a read, puts back the mode it found: this
  /// quiet one, so the host restores its own.)
  func restore() {
    guard owned else { return }
    var saved = saved
    _ = tcsetattr(descriptor, TCSANOW, &saved)
  }
}
