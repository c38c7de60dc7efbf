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
    self.init(
      id: id, name: name, version: version, description: object["description"]?.stringValue ?? "", actions: actions,
      steps: steps)
  }

  /// The non-empty string `object[key]`; `path` places the object in the manifest for the error.
  static func text(_ key: String, in object: [String: JSONValue], at path: String) throws(ManifestError) -> String {
    guard let field = object[key] else { throw ManifestError("manifest has no \(path)\(key)") }
    guard let string = field.stringValue, !string.isEmpty else {
      throw ManifestError("manifest \(path)\(key) must be a non-empty string, got \(field.serialized())")
    }
    return string
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
