/// Converts actions between the flat shape used across the plugin ABI,
/// `{"type": "set", "left": 3, "right": 9}`, and the nested shape Swift's
/// synthesized `Codable` uses for enums, `{"set": {"left": 3, "right": 9}}`.
///
/// Cases without payload nest as `{"increment": {}}`; unlabeled payloads use
/// the synthesized `_0`, `_1`, ... keys (`{"type": "wrap", "_0": "x"}`).
public enum TaggedCoding {
  /// The member of the flat shape that names the enum case.
  public static let typeKey = "type"

  /// Flat -> nested. Requires an object with a string `type`; every other
  /// member becomes the payload.
  public static func nest(_ flat: JSONValue) throws -> JSONValue {
    let (tag, members) = try split(flat)
    var payload: [String: JSONValue] = [:]
    if members.count > 1 {
      payload = members
      payload.removeValue(forKey: typeKey)
    }
    return .object([tag: .object(payload)])
  }

  /// The case name and the flat members (still including `type`).
  static func split(
    _ flat: JSONValue
  ) throws(TaggedCodingError) -> (tag: String, members: [String: JSONValue]) {
    guard case .object(let members) = flat else {
      throw TaggedCodingError(
        message: "expected an object with a \"type\" member, found \(describeFound(flat))")
    }
    guard let tag = members[typeKey] else {
      throw TaggedCodingError(message: "missing \"type\" member in tagged object")
    }
    guard case .string(let name) = tag else {
      throw TaggedCodingError(message: "\"type\" must be a string, found \(describeFound(tag))")
    }
    return (name, members)
  }

  /// Nested -> flat. Requires an object with exactly one member whose value
  /// is an object without its own `type` member (it would be overwritten).
  public static func flatten(_ nested: JSONValue) throws -> JSONValue {
    guard case .object(let outer) = nested else {
      throw TaggedCodingError(
        message: "expected an object with exactly one case key, found \(describeFound(nested))")
    }
    guard outer.count == 1, let (name, payload) = outer.first else {
      let keys = outer.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
      throw TaggedCodingError(
        message: "expected an object with exactly one case key, found \(outer.count) keys"
          + (keys.isEmpty ? "" : " (\(keys))"))
    }
    guard case .object(var members) = payload else {
      throw TaggedCodingError(
        message: "payload of case \"\(name)\" must be an object, found \(describeFound(payload))")
    }
    guard members[typeKey] == nil else {
      throw TaggedCodingError(
        message: "payload of case \"\(name)\" must not contain a \"type\" member")
    }
    members[typeKey] = .string(name)
    return .object(members)
  }
}
