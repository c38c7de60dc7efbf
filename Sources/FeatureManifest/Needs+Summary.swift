extension Needs {
  /// The needs in a few words, for a line of `host list`: `none`, or each kind with its targets,
  /// e.g. `connect 443, endpoint's port (default 443); read /usr/share/dict`.
  public var summary: String {
    guard !isEmpty else { return "none" }
    return kinds.filter { !$0.targets.isEmpty }.map { kind, targets in
      "\(kind.rawValue) " + targets.map { $0.summary(for: kind) }.joined(separator: ", ")
    }.joined(separator: "; ")
  }
}

extension Needs.Target {
  /// The target in a few words: a port or path as written, a setting as `NAME's port` or
  /// `NAME's path` with what its default comes to, when that is a port or path.
  func summary(for kind: Needs.Kind) -> String {
    switch self {
    case .port(let port): return "\(port)"
    case .path(let path): return path
    case .setting(let name, _, let fallback):
      let named = "\(name)'s \(kind == .connect ? "port" : "path")"
      switch fallback.map({ NeedValue($0, for: kind) }) {
      case .port(let port): return "\(named) (default \(port))"
      case .path(let path): return "\(named) (default \(path))"
      case .nothing, nil: return named
      }
    }
  }
}
