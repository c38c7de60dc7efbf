import FeatureJSON

extension Manifest {
  /// Why the catalogue and `action` disagree, or nil. Each catalogued action, with a typical value
  /// for each argument, must decode as `action` (a type it has no case for, or an argument name
  /// its case does not use, is a mismatch) and encode back with the same members (a catalogued
  /// argument its case drops is one too). A value the case refuses (a mode that is not
  /// "sample") says nothing about the names, and is let pass.
  public func catalogueMismatch<Action: Codable>(with action: Action.Type) -> String? {
    let decoder = JSONValueDecoder()
    let encoder = JSONValueEncoder()
    for spec in actions {
      var object: [String: JSONValue] = ["type": .string(spec.type)]
      for argument in spec.arguments { object[argument.name] = argument.kind.typicalValue }
      let decoded: Action
      do {
        decoded = try decoder.decodeTagged(Action.self, from: .object(object))
      } catch DecodingError.keyNotFound(let key, _) {
        return "the catalogue's action '\(spec.type)' does not list the argument '\(key.stringValue)' that "
          + "\(Action.self) needs"
      } catch {
        let reason = describeDecodingError(error)
        guard reason.contains("unknown \"type\"") else { continue }
        return "the catalogue lists the action '\(spec.type)', which \(Action.self) has no case for"
      }
      guard let encoded = (try? encoder.encodeTagged(decoded))?.objectValue else { continue }
      if let dropped = spec.arguments.first(where: { encoded[$0.name] == nil }) {
        return "the catalogue's action '\(spec.type)' lists the argument '\(dropped.name)', which \(Action.self) "
          + "does not take"
      }
      if let unlisted = encoded.keys.sorted().first(where: { key in
        key != "type" && !spec.arguments.contains { $0.name == key }
      }) {
        return "the catalogue's action '\(spec.type)' does not list the argument '\(unlisted)' of \(Action.self)"
      }
    }
    return nil
  }
}

extension ArgumentSpec.Kind {
  /// A value of this kind that any argument of it decodes from.
  var typicalValue: JSONValue {
    switch self {
    case .integer: 1
    case .number: 1
    case .string: "sample"
    case .boolean: true
    }
  }
}
