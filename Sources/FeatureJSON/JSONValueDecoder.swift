/// Decodes any `Decodable` from a `JSONValue` tree.
///
/// Semantics follow Foundation's `JSONDecoder` (missing key -> `keyNotFound`,
/// `null` for a non-optional -> `valueNotFound`, `decodeIfPresent` yields
/// `nil` for missing or `null`), but error descriptions name the key and
/// the expected vs. found value, e.g. `expected an integer for "count",
/// found string "a"`. `describeDecodingError(_:)` renders them as one line.
public struct JSONValueDecoder: Sendable {
  /// Handed to `Decodable` implementations as `Decoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

  public init() {}

  public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    try decodeValue(type, from: value, at: [], userInfo: userInfo)
  }
}

/// Decodes a nested value, skipping the decoder allocation for the types
/// that dominate real payloads (stdlib collections reach here generically).
func decodeValue<T: Decodable>(
  _ type: T.Type, from value: JSONValue, at codingPath: @autoclosure () -> [any CodingKey],
  userInfo: [CodingUserInfoKey: Any]
) throws -> T {
  if T.self == String.self, let result = try PrimitiveUnbox.string(value, at: codingPath()) as? T {
    return result
  }
  if T.self == Int.self,
    let result = try PrimitiveUnbox.integer(value, as: Int.self, at: codingPath()) as? T
  {
    return result
  }
  if T.self == JSONValue.self, let result = value as? T {
    return result
  }
  return try T(from: JSONDecoderImpl(value: value, codingPath: codingPath(), userInfo: userInfo))
}
