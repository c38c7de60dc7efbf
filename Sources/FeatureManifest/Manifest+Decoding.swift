import FeatureJSON

extension Manifest {
  /// Parses and checks a manifest by the rules of feature_abi.h (manifest_json); the error says
  /// which field is wrong. Help texts and the description are optional.
  public init(json: String) throws(ManifestError) {
    let value: JSONValue
    do {
      value = try JSONValue.parse(json)
    } catch {
      throw ManifestError("manifest is not valid JSON: \(error)")
    }
    guard let object = value.objectValue else { throw ManifestError("manifest must be a JSON object") }
    let id = try Self.text("id", in: object, at: "")
    guard id.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 }) else {
      throw ManifestError("manifest id '\(id)' may only hold lowercase letters, digits, '-' and '_'")
    }
    let name = try Self.text("name", in: object, at: "")
    let version = try Self.text("version", in: object, at: "")
    guard let list = object["actions"]?.arrayValue else {
      throw ManifestError("manifest has no array 'actions'")
    }
    var actions: [ActionSpec] = []
    for (index, entry) in list.enumerated() {
      let path = "actions[\(index)]."
      guard let spec = entry.objectValue else { throw ManifestError("manifest actions[\(index)] must be an object") }
      let type = try Self.text("type", in: spec, at: path)
      if Self.lifecycleTypes.contains(type) {
        throw ManifestError("manifest \(path)type '\(type)' is a lifecycle action the host sends; do not list it")
      }
      if actions.contains(where: { $0.type == type }) {
        throw ManifestError("manifest lists action '\(type)' twice")
      }
      let arguments = try ArgumentSpec.list(spec["arguments"]?.arrayValue ?? [], of: type, at: path)
      actions.append(ActionSpec(type, help: spec["help"]?.stringValue ?? "", arguments: arguments))
    }
    var steps: [StepSpec] = []
    for (index, entry) in (object["steps"]?.arrayValue ?? []).enumerated() {
      guard let spec = entry.objectValue else { throw ManifestError("manifest steps[\(index)] must be an object") }
      steps.append(
        StepSpec(try Self.text("step", in: spec, at: "steps[\(index)]."), help: spec["help"]?.stringValue ?? ""))
    }
    let needs = try Needs(manifestField: object["needs"])
    self.init(
      id: id, name: name, version: version, description: object["description"]?.stringValue ?? "", actions: actions,
      steps: steps, needs: needs)
  }

  /// The non-empty string `object[key]`; `path` places the object in the manifest for the error.
  static func text(_ key: String, in object: [String: JSONValue], at path: String) throws(ManifestError) -> String {
    guard let field = object[key] else { throw ManifestError("manifest has no \(path)\(key)") }
    guard let string = field.stringValue, !string.isEmpty else {
      throw ManifestError("manifest \(path)\(key) must be a non-empty string, got \(field.serialized())")
    }
    return string
  }

  /// `text(key, in: object, at: path)` when the object has `key`, else nil.
  static func optionalText(_ key: String, in object: [String: JSONValue], at path: String) throws(ManifestError)
    -> String?
  {
    guard object[key] != nil else { return nil }
    return try text(key, in: object, at: path)
  }
}

extension ArgumentSpec {
  /// Reads the `arguments` of the action `type`, found at `path` in the manifest.
  static func list(_ entries: [JSONValue], of type: String, at path: String) throws(ManifestError) -> [ArgumentSpec] {
    var arguments: [ArgumentSpec] = []
    for (index, entry) in entries.enumerated() {
      let argumentPath = "\(path)arguments[\(index)]."
      guard let argument = entry.objectValue else {
        throw ManifestError("manifest \(path)arguments[\(index)] must be an object")
      }
      let name = try Manifest.text("name", in: argument, at: argumentPath)
      guard name != "type" else {
        throw ManifestError("manifest action '\(type)' has an argument named 'type', the action's own tag")
      }
      guard !arguments.contains(where: { $0.name == name }) else {
        throw ManifestError("manifest action '\(type)' lists the argument '\(name)' twice")
      }
      let kindName = try Manifest.text("type", in: argument, at: argumentPath)
      guard let kind = Kind(rawValue: kindName) else {
        throw ManifestError("manifest \(argumentPath)type '\(kindName)' is not one of integer, number, string, boolean")
      }
      arguments.append(
        ArgumentSpec(
          name, kind, help: argument["help"]?.stringValue ?? "", required: argument["required"]?.boolValue ?? true))
    }
    return arguments
  }
}

extension Needs {
  /// Reads the manifest's optional `needs` object (absent: none). Unknown keys are refused, so a
  /// misspelt kind is not silently a need the plugin does not get.
  init(manifestField field: JSONValue?) throws(ManifestError) {
    self.init()
    guard let field else { return }
    guard let object = field.objectValue else {
      throw ManifestError("manifest needs must be an object, got \(field.serialized())")
    }
    let unknown = object.keys.filter { Kind(rawValue: $0) == nil }.sorted()
    guard unknown.isEmpty else {
      throw ManifestError(
        "manifest needs has the unknown \(Self.keys(unknown)); it takes connect, read and write")
    }
    for kind in Kind.allCases {
      guard let list = object[kind.rawValue] else { continue }
      guard let entries = list.arrayValue else {
        throw ManifestError("manifest needs.\(kind.rawValue) must be an array, got \(list.serialized())")
      }
      var targets: [Target] = []
      for (index, entry) in entries.enumerated() {
        targets.append(try Target(entry, of: kind, at: "needs.\(kind.rawValue)[\(index)]"))
      }
      switch kind {
      case .connect: connect = targets
      case .read: read = targets
      case .write: write = targets
      }
    }
  }

  /// `key 'a'` or `keys 'a', 'b'`.
  static func keys(_ names: [String]) -> String {
    (names.count == 1 ? "key " : "keys ") + names.map { "'\($0)'" }.joined(separator: ", ")
  }

  /// Whether `path` is absolute, or starts from the home folder (`~/`).
  static func isAbsolute(_ path: String) -> Bool { path.hasPrefix("/") || path.hasPrefix("~/") }
}

extension Needs.Target {
  /// The setting reference's members.
  static let settingKeys = ["setting", "environment", "default"]

  /// Reads one entry of the list `kind`, found at `path` in the manifest.
  init(_ entry: JSONValue, of kind: Needs.Kind, at path: String) throws(ManifestError) {
    if let reference = entry.objectValue {
      let unknown = reference.keys.filter { !Self.settingKeys.contains($0) }.sorted()
      guard unknown.isEmpty else {
        throw ManifestError(
          "manifest \(path) has the unknown \(Needs.keys(unknown)); a setting reference takes setting, "
            + "environment and default")
      }
      let name = try Manifest.text("setting", in: reference, at: path + ".")
      let environment = try Manifest.optionalText("environment", in: reference, at: path + ".")
      let fallback = try Manifest.optionalText("default", in: reference, at: path + ".")
      self = .setting(name: name, environment: environment, default: fallback)
      return
    }
    switch kind {
    case .connect:
      guard let number = entry.intValue, let port = UInt16(exactly: number), port > 0 else {
        throw ManifestError(
          "manifest \(path) must be a port (1...65535) or a setting reference, got \(entry.serialized())")
      }
      self = .port(port)
    case .read, .write:
      guard let text = entry.stringValue else {
        throw ManifestError(
          "manifest \(path) must be an absolute path or a setting reference, got \(entry.serialized())")
      }
      guard Needs.isAbsolute(text) else {
        throw ManifestError("manifest \(path) '\(text)' is not an absolute path; start it with / or ~/")
      }
      self = .path(text)
    }
  }
}
