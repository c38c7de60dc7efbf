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

/// What a process runs.
public enum ProcessExecutable {
  /// The executable process `pid` runs (the target of /proc/PID/exe; nil: this process), or nil
  /// when it cannot be read (the process is gone).
  public static func path(of pid: pid_t? = nil) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(pid.map { "/proc/\($0)/exe" } ?? "/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
