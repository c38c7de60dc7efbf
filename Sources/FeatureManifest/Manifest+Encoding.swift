import FeatureJSON

extension Manifest {
  /// The manifest as the JSON object feature_abi.h describes (manifest_json); `init(json:)` reads
  /// it back equal.
  public var json: JSONValue {
    .object([
      "id": .string(id), "name": .string(name), "version": .string(version),
      "description": .string(description), "actions": .array(actions.map(\.json)),
      "steps": .array(steps.map(\.json)),
    ])
  }
}

extension ActionSpec {
  var json: JSONValue {
    .object(["type": .string(type), "help": .string(help), "arguments": .array(arguments.map(\.json))])
  }
}

extension ArgumentSpec {
  var json: JSONValue {
    .object([
      "name": .string(name), "type": .string(kind.rawValue), "help": .string(help), "required": .bool(required),
    ])
  }
}

extension StepSpec {
  var json: JSONValue { .object(["step": .string(step), "help": .string(help)]) }
}
