import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Turns SIGINT, SIGTERM, SIGHUP and SIGWINCH into calls on a watcher thread, where any work is
/// allowed: the signal handler itself only writes the signal's number to a pipe.
final class SignalWatch: Sendable {
  static let watched = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]

  /// The pipe's write end, for the handler. Written before any handler is installed.
  nonisolated(unsafe) private static var handlerDescriptor: Int32 = -1
  private let descriptors: (read: Int32, write: Int32)

  /// Calls `handle` with each watched signal, on its own thread, until `cancel`.
  init?(handle: @escaping @Sendable (Int32) -> Void) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    descriptors = (fds[0], fds[1])
    Self.handlerDescriptor = fds[1]
    let readEnd = fds[0]
    let watcher = Thread {
      var number: UInt8 = 0
      while true {
        let count = read(readEnd, &number, 1)
        if count < 0 && errno == EINTR { continue }
        guard count == 1 else { return }
        handle(Int32(number))
      }
    }
    watcher.name = "signals"
    watcher.start()
    for signal in Self.watched { Self.install(signal) }
    Self.install(SIGUSR2)
  }

  /// Restores the default actions and ends the watcher thread.
  func cancel() {
    for signal in Self.watched + [SIGUSR2] { Glibc.signal(signal, SIG_DFL) }
    // The watcher thread reads the end of the pipe and returns.
    close(descriptors.write)
  }

  /// Interrupts a blocking read of `thread` (EINTR), through SIGUSR2, whose handler does nothing.
  static func interruptRead(of thread: pthread_t) {
    _ = pthread_kill(thread, SIGUSR2)
  }

  private static func install(_ signal: Int32) {
    var action = sigaction()
    // No SA_RESTART: a read blocked in the main thread returns EINTR and sees what happened.
    action.sa_flags = 0
    sigemptyset(&action.sa_mask)
    action.__sigaction_handler.sa_handler = { number in
      guard number != SIGUSR2 else { return }
      var byte = UInt8(truncatingIfNeeded: number)
      let saved = errno
      _ = write(SignalWatch.handlerDescriptor, &byte, 1)
      errno = saved
    }
    sigaction(signal, &action, nil)
  }
}
