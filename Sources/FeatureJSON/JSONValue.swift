/// An immutable JSON document tree.
///
/// This is the currency type across the plugin ABI: actions and state travel
/// as `JSONValue` and are bridged to Swift types with `JSONValueDecoder` and
/// `JSONValueEncoder`.
public enum JSONValue: Sendable, Hashable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])
}

extension JSONValue {
  /// The member named `key` when this is an object; `nil` otherwise.
  public subscript(key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members[key]
  }

  /// The string payload, if this is a string.
  public var stringValue: String? {
    guard case .string(let value) = self else { return nil }
    return value
  }

  /// The number as `Int64`; doubles qualify when integral and in range.
  public var intValue: Int64? {
    guard case .number(let number) = self else { return nil }
    return number.int64Value
  }

  /// The number as `Double`, whichever way it was written.
  public var doubleValue: Double? {
    guard case .number(let number) = self else { return nil }
    return number.doubleValue
  }

  /// The boolean payload, if this is `true` or `false`.
  public var boolValue: Bool? {
    guard case .bool(let value) = self else { return nil }
    return value
  }

  /// The elements, if this is an array.
  public var arrayValue: [JSONValue]? {
    guard case .array(let elements) = self else { return nil }
    return elements
  }

  /// The members, if this is an object.
  public var objectValue: [String: JSONValue]? {
    guard case .object(let members) = self else { return nil }
    return members
  }
}
