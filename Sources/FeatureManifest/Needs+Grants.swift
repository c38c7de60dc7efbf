import FeatureJSON

extension Needs {
  /// The concrete ports and paths these needs come to for an instance created with `config` (the
  /// parsed config object) in `environment` (which supplies $HOME for `~/` and the variables the
  /// setting references name).
  ///
  /// A setting reference takes the config's value, else its environment variable's, else its
  /// default, as the feature itself reads it. A need that comes to nothing (not set, or a value of
  /// the wrong kind, like an ftp URL to connect to) grants nothing and is told in `unresolved`.
  public func grants(config: [String: JSONValue], environment: [String: String]) -> NeedGrants {
    var ports: Set<UInt16> = []
    var reads: Set<String> = []
    var writes: Set<String> = []
    var unresolved: [String] = []
    for (kind, targets) in kinds {
      for target in targets {
        let value = target.value(for: kind, config: config, environment: environment)
        switch value.expandingHome(environment["HOME"]) {
        case .port(let port): ports.insert(port)
        case .path(let path) where kind == .write: writes.insert(Self.normalized(path))
        case .path(let path): reads.insert(Self.normalized(path))
        case .nothing(let reason): unresolved.append("\(kind.rawValue) \(target.label): \(reason)")
        }
      }
    }
    return NeedGrants(
      readPaths: reads.subtracting(writes).sorted(), writePaths: writes.sorted(), connectPorts: ports.sorted(),
      unresolved: unresolved)
  }

  /// `path` without empty or `.` components and without a trailing slash (`/` stays `/`).
  static func normalized(_ path: String) -> String {
    "/" + path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
  }
}

extension Needs.Target {
  /// What this target names for `kind`, before `~/` is expanded.
  func value(for kind: Needs.Kind, config: [String: JSONValue], environment: [String: String]) -> NeedValue {
    switch self {
    case .port(let port): return .port(port)
    case .path(let path): return .path(path)
    case .setting(let name, let variable, let fallback):
      if let value = config[name] { return NeedValue(config: value, for: kind) }
      if let variable, let text = environment[variable] { return NeedValue(text, for: kind) }
      if let fallback { return NeedValue(fallback, for: kind) }
      let sources = ["the config"] + (variable.map { ["$\($0)"] } ?? [])
      return .nothing("not set (not in \(sources.joined(separator: " or ")), and no default)")
    }
  }

  /// How an unresolved line names it: the setting, the path or the port.
  var label: String {
    switch self {
    case .port(let port): "\(port)"
    case .path(let path): path
    case .setting(let name, _, _): name
    }
  }
}

extension NeedValue {
  /// A `~/` path made absolute with `home`; nothing when there is no usable home.
  func expandingHome(_ home: String?) -> NeedValue {
    guard case .path(let path) = self, path.hasPrefix("~/") else { return self }
    guard let home, home.hasPrefix("/") else { return .nothing("'\(path)' is in the home folder, and HOME is not set") }
    return .path(home + "/" + path.dropFirst(2))
  }
}
