#if canImport(Glibc)
  import Glibc
#endif

/// Unbuffered writes to the terminal's descriptors, so that stdout and stderr keep their order.
enum TerminalOutput {
  /// Writes all of `text` to `descriptor`, again after an interrupted write; stops quietly at an
  /// error (a closed terminal has no one to tell).
  static func write(_ descriptor: Int32, _ text: String) {
    var text = text
    text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
      }
    }
  }
}
