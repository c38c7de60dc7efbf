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
}
