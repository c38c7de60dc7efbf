#if canImport(Glibc)
  import Glibc
#endif

/// The size of the terminal a descriptor writes to.
enum TerminalSize {
  /// Its width in columns, or nil when it is not a terminal (or reports none).
  static func columns(of descriptor: Int32) -> Int? {
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }
}
