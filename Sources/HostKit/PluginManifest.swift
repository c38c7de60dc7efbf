import FeatureJSON

/// A plugin's manifest as the host reads it: identity and the catalogue of typed actions.
public struct PluginManifest: Sendable, Equatable {
  public struct Argument: Sendable, Equatable {
    public enum Kind: String, Sendable { case integer, number, string, boolean }
    public var name: String
    public var kind: Kind
    public var help: String
    public var required: Bool
  }

  public struct Action: Sendable, Equatable {
    public var type: String
    public var help: String
    public var arguments: [Argument]
  }

  public var id: String
  public var name: String
  public var version: String
  public var description: String
  public var actions: [Action]
  /// The navigation steps the feature emits, with their help.
  public var steps: [(step: String, help: String)] = []

  public static func == (lhs: PluginManifest, rhs: PluginManifest) -> Bool {
    lhs.id == rhs.id && lhs.name == rhs.name && lhs.version == rhs.version && lhs.description == rhs.description
      && lhs.actions == rhs.actions && lhs.steps.map(\.step) == rhs.steps.map(\.step)
      && lhs.steps.map(\.help) == rhs.steps.map(\.help)
  }

  /// The lifecycle actions only the host sends.
  public static let lifecycleTypes: Set<String> = ["created", "restored"]

  public func action(named type: String) -> Action? { actions.first { $0.type == type } }

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
    func text(_ key: String, in object: [String: JSONValue], at path: String) throws(ManifestError) -> String {
      guard let field = object[key] else { throw ManifestError("manifest has no \(path)\(key)") }
      guard let string = field.stringValue, !string.isEmpty else {
        throw ManifestError("manifest \(path)\(key) must be a non-empty string, got \(field.serialized())")
      }
      return string
    }
    id = try text("id", in: object, at: "")
    guard id.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 }) else {
      throw ManifestError("manifest id '\(id)' may only hold lowercase letters, digits, '-' and '_'")
    }
    name = try text("name", in: object, at: "")
    version = try text("version", in: object, at: "")
    description = object["description"]?.stringValue ?? ""
    guard let list = object["actions"]?.arrayValue else {
      throw ManifestError("manifest has no array 'actions'")
    }
    var actions: [Action] = []
    for (index, entry) in list.enumerated() {
      let path = "actions[\(index)]."
      guard let spec = entry.objectValue else { throw ManifestError("manifest actions[\(index)] must be an object") }
      let type = try text("type", in: spec, at: path)
      if Self.lifecycleTypes.contains(type) {
        throw ManifestError("manifest \(path)type '\(type)' is a lifecycle action the host sends; do not list it")
      }
      if actions.contains(where: { $0.type == type }) {
        throw ManifestError("manifest lists action '\(type)' twice")
      }
      var arguments: [Argument] = []
      for (argumentIndex, argumentEntry) in (spec["arguments"]?.arrayValue ?? []).enumerated() {
        let argumentPath = "\(path)arguments[\(argumentIndex)]."
        guard let argument = argumentEntry.objectValue else {
          throw ManifestError("manifest \(path)arguments[\(argumentIndex)] must be an object")
        }
        let name = try text("name", in: argument, at: argumentPath)
        guard name != "type" else {
          throw ManifestError("manifest action '\(type)' has an argument named 'type', the action's own tag")
        }
        guard !arguments.contains(where: { $0.name == name }) else {
          throw ManifestError("manifest action '\(type)' lists the argument '\(name)' twice")
        }
        let kindName = try text("type", in: argument, at: argumentPath)
        guard let kind = Argument.Kind(rawValue: kindName) else {
          throw ManifestError(
            "manifest \(argumentPath)type '\(kindName)' is not one of integer, number, string, boolean")
        }
        arguments.append(
          Argument(
            name: name, kind: kind, help: argument["help"]?.stringValue ?? "",
            required: argument["required"]?.boolValue ?? true))
      }
      actions.append(Action(type: type, help: spec["help"]?.stringValue ?? "", arguments: arguments))
    }
    self.actions = actions
    for (index, entry) in (object["steps"]?.arrayValue ?? []).enumerated() {
      guard let spec = entry.objectValue else { throw ManifestError("manifest steps[\(index)] must be an object") }
      let step = try text("step", in: spec, at: "steps[\(index)].")
      steps.append((step, spec["help"]?.stringValue ?? ""))
    }
  }
}

/// Why a manifest was refused.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}
