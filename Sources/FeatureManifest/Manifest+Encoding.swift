import FeatureJSON

extension Manifest {
  /// The manifest as the JSON object feature_abi.h describes (manifest_json); `init(json:)` reads
  /// it back equal. `needs` is left out when there are none.
  public var json: JSONValue {
    var members: [String: JSONValue] = [
      "id": .string(id), "name": .string(name), "version": .string(version),
      "description": .string(description), "actions": .array(actions.map(\.json)),
      "steps": .array(steps.map(\.json)),
    ]
    if !needs.isEmpty { members["needs"] = needs.json }
    return .object(members)
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

extension Needs {
  /// The `needs` object, with only the kinds that have targets.
  var json: JSONValue {
    var members: [String: JSONValue] = [:]
    for (kind, targets) in kinds where !targets.isEmpty {
      members[kind.rawValue] = .array(targets.map(\.json))
    }
    return .object(members)
  }
}

extension Needs.Target {
  var json: JSONValue {
    switch self {
    case .port(let port):
      return JSONValue(integerLiteral: Int64(port))
    case .path(let path):
      return .string(path)
    case .setting(let name, let environment, let fallback):
      var members: [String: JSONValue] = ["setting": .string(name)]
      if let environment { members["environment"] = .string(environment) }
      if let fallback { members["default"] = .string(fallback) }
      return .object(members)
    }
  }
}
