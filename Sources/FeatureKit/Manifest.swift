import FeatureJSON

/// What a plugin tells the host about its feature: identity and the catalogue of typed actions.
public struct Manifest: Sendable, Equatable {
  public var id: String
  public var name: String
  public var version: String
  public var description: String
  public var actions: [ActionSpec]

  public init(id: String, name: String, version: String, description: String, actions: [ActionSpec]) {
    self.id = id
    self.name = name
    self.version = version
    self.description = description
    self.actions = actions
  }

  /// The manifest as the JSON object the ABI describes.
  public var json: JSONValue {
    .object([
      "id": .string(id), "name": .string(name), "version": .string(version),
      "description": .string(description), "actions": .array(actions.map(\.json)),
    ])
  }
}

/// One action a user may type, with its arguments and help.
public struct ActionSpec: Sendable, Equatable {
  public var type: String
  public var help: String
  public var arguments: [ArgumentSpec]

  public init(_ type: String, help: String, arguments: [ArgumentSpec] = []) {
    self.type = type
    self.help = help
    self.arguments = arguments
  }

  var json: JSONValue {
    .object(["type": .string(type), "help": .string(help), "arguments": .array(arguments.map(\.json))])
  }
}

/// One argument of a typed action: `set left=3` has the integer argument `left`.
public struct ArgumentSpec: Sendable, Equatable {
  public enum Kind: String, Sendable { case integer, number, string, boolean }

  public var name: String
  public var kind: Kind
  public var help: String
  public var required: Bool

  public init(_ name: String, _ kind: Kind, help: String, required: Bool = true) {
    self.name = name
    self.kind = kind
    self.help = help
    self.required = required
  }

  var json: JSONValue {
    .object([
      "name": .string(name), "type": .string(kind.rawValue), "help": .string(help), "required": .bool(required),
    ])
  }
}
