#if canImport(Glibc)
  import Glibc
#endif

/// `host-worker`, the executable a worker or a scanner child runs: the host's worker and scanner
/// without Foundation and the rest of the host, so it starts in about half the time.
public enum LeanExecutable {
  /// `host-worker` beside `host` (the host executable's path); `host` itself where there is none,
  /// as when the host was copied alone (it serves `__worker` and `__scan` too).
  public static func beside(_ host: String) -> String {
    guard let slash = host.lastIndex(of: "/") else { return host }
    let lean = String(host[...slash]) + "host-worker"
    return access(lean, X_OK) == 0 ? lean : host
  }
}
