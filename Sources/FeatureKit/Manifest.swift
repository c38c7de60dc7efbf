import FeatureJSON

/// What a plugin tells the host about its feature: identity and the catalogue of typed actions.
public struct Manifest: Sendable, Equatable {
  public var id: String
  public var name: String
  public var version: String
  public var description: String
  public var actions: [ActionSpec]
  /// The navigation steps the feature emits (see `Effect.navigate`).
  public var steps: [StepSpec]

  public init(
    id: String, name: String, version: String, description: String, actions: [ActionSpec], steps: [StepSpec] = []
  ) {
    self.id = id
    self.name = name
    self.version = version
    self.description = description
    self.actions = actions
    self.steps = steps
  }

  /// The manifest as the JSON object the ABI describes.
  public var json: JSONValue {
    .object([
      "id": .string(id), "name": .string(name), "version": .string(version),
      "description": .string(description), "actions": .array(actions.map(\.json)),
      "steps": .array(steps.map { .object(["step": .string($0.step), "help": .string($0.help)]) }),
    ])
  }
}

/// A navigation step a feature emits: what happened, for flows to map to a destination.
public struct StepSpec: Sendable, Equatable {
  public var step: String
  public var help: String

  public init(_ step: String, help: String) {
    self.step = step
    self.help = help
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
