#if canImport(Glibc)
  import Glibc
#endif

/// A helper process the host runs from its own executable (`host __scan`, `host __image`): tied
/// to the host, so it never outlives a host that was killed or quit.
public enum HostChild {
  /// The variable that gives the child the process id of the host that started it.
  public static let parentVariable = "FEATUREHOST_PARENT"

  /// `environment` for a child this process starts and waits for on the same thread.
  public static func tied(_ environment: [String: String]) -> [String: String] {
    var environment = environment
    environment[parentVariable] = String(getpid())
    return environment
  }

  /// Called first in the child: when a host started it (`parentVariable` is set), asks the kernel
  /// to kill this process when the host goes (PR_SET_PDEATHSIG: it follows the host's thread that
  /// started the child, which waits for it to end). False when the host is already gone, or the
  /// request failed: the child should leave.
  public static func endsWithItsHost() -> Bool {
    guard let text = getenv(parentVariable), let parent = pid_t(String(cString: text)) else { return true }
    // A parent that died before the request is caught by getppid.
    return GNUExtensions.killWhenParentEnds(signal: SIGKILL) && getppid() == parent
  }

  /// Where a child writes its report: `descriptor`, when the host handed it one there, else
  /// stdout (the child run by hand).
  public static func reportSink(_ descriptor: Int32) -> Int32 {
    fcntl(descriptor, F_GETFD) == -1 ? STDOUT_FILENO : descriptor
  }

  /// Writes `line` and a newline to `descriptor`, all of it, retrying EINTR. A reader that is gone
  /// ends the write quietly: nobody is left to read it.
  public static func writeLine(_ line: String, to descriptor: Int32) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        write(descriptor, $0.baseAddress.map { $0 + offset }, $0.count - offset)
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }
}
