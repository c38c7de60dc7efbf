#if canImport(Glibc)
  import Glibc
#endif

/// `host-worker`, the executable a worker, a scanner child or an image child runs: those parts of
/// the host without Foundation and the rest of it, so it starts in about half the time.
public enum LeanExecutable {
  /// `host-worker` beside `host` (the host executable's path); `host` itself where there is none,
  /// as when the host was copied alone (it serves `__worker`, `__scan` and `__image` too).
  public static func beside(_ host: String) -> String {
    guard let slash = host.lastIndex(of: "/") else { return host }
    let lean = String(host[...slash]) + "host-worker"
    return access(lean, X_OK) == 0 ? lean : host
  }
}
