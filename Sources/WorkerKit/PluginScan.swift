import FeatureJSON

/// Scans one plugin file for the registry: loads it somewhere (a child process, usually), checks
/// it and says what it found. Called from any thread, possibly several at once.
public typealias PluginScanner = @Sendable (_ path: String) -> PluginScan

/// What a scanner found in one plugin file.
public enum PluginScan: Sendable, Equatable {
  /// It passed every check: its manifest (the JSON the plugin gave) and its descriptor's version.
  case plugin(manifestJSON: String, abiMajor: UInt32, abiMinor: UInt32, structSize: UInt32)
  /// It failed: one line saying why, and how to fix it.
  case rejected(reason: String, help: String?)

  /// Loads `path` in this process, which runs its code: what a scanner child does. `entering`
  /// hears each phase of the load before it starts.
  public static func inProcess(_ path: String, entering: (PluginLoader.Phase) -> Void = { _ in }) -> PluginScan {
    do {
      let plugin = try PluginLoader.load(path, entering: entering)
      return .plugin(
        manifestJSON: String(cString: plugin.functions.manifest_json), abiMajor: plugin.abiMajor,
        abiMinor: plugin.abiMinor, structSize: plugin.structSize)
    } catch {
      return .rejected(reason: error.message, help: error.help)
    }
  }

  /// The scan as one JSON object: a scanner child's answer, a registry cache entry's result.
  public var json: JSONValue {
    switch self {
    case .plugin(let manifest, let major, let minor, let size):
      return [
        "manifest": .string(manifest), "abi_major": JSONValue(integerLiteral: Int64(major)),
        "abi_minor": JSONValue(integerLiteral: Int64(minor)), "struct_size": JSONValue(integerLiteral: Int64(size)),
      ]
    case .rejected(let reason, let help):
      var object: [String: JSONValue] = ["rejected": .string(reason)]
      if let help { object["help"] = .string(help) }
      return .object(object)
    }
  }

  /// Reads what `json` wrote; nil for anything else.
  public init?(json: JSONValue) {
    if let reason = json["rejected"]?.stringValue {
      self = .rejected(reason: reason, help: json["help"]?.stringValue)
      return
    }
    func number(_ key: String) -> UInt32? { json[key]?.intValue.flatMap { UInt32(exactly: $0) } }
    guard let manifest = json["manifest"]?.stringValue, let major = number("abi_major"),
      let minor = number("abi_minor"), let size = number("struct_size")
    else { return nil }
    self = .plugin(manifestJSON: manifest, abiMajor: major, abiMinor: minor, structSize: size)
  }
}
