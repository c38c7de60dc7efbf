#if canImport(Glibc)
  import Glibc
#endif

/// A pipe one thread writes a byte to so that another, blocked in poll(2), wakes up. Both ends are
/// closed when the last holder lets go, so a late `signal` never writes to a reused descriptor.
final class WakePipe: Sendable {
  let readEnd: Int32
  private let writeEnd: Int32

  init?() {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
      // Not inherited by children (workers, builds); a write never blocks the thread signalling.
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, O_NONBLOCK)
    }
    readEnd = ends[0]
    writeEnd = ends[1]
  }

  deinit {
    close(readEnd)
    close(writeEnd)
  }

  /// Any thread. A full pipe already wakes the reader: the byte is not needed then.
  func signal() {
    var byte: UInt8 = 1
    _ = write(writeEnd, &byte, 1)
  }

  /// Reads every byte signalled so far, so the next poll waits for a new one. The reader's thread.
  func drain() {
    var bytes = [UInt8](repeating: 0, count: 64)
    while read(readEnd, &bytes, bytes.count) > 0 {}
  }
}
