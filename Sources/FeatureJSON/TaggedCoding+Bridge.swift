// Flat-shape conveniences on the encoder and decoder: the one-call path for
// actions crossing the plugin ABI.

extension JSONValueDecoder {
  /// Decodes an enum with synthesized `Codable` from the flat shape
  /// `{"type": "case", ...payload}`. A malformed shape is reported as
  /// `DecodingError.dataCorrupted` at the root, an unknown case name at the
  /// `type` key; payload errors have paths like `set.left`.
  public func decodeTagged<T: Decodable>(_ type: T.Type, from flat: JSONValue) throws -> T {
    let tag: String
    let members: [String: JSONValue]
    do {
      (tag, members) = try TaggedCoding.split(flat)
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: [], debugDescription: error.message, underlyingError: error))
    }
    if T.self == JSONValue.self, let nested = try TaggedCoding.nest(flat) as? T {
      return nested
    }
    do {
      // Decodes against a view of the nested shape; no nested copy is built.
      return try T(from: TaggedDecoderImpl(tag: tag, members: members, userInfo: userInfo))
    } catch DecodingError.typeMismatch(_, let context)
      where context.codingPath.isEmpty && context.debugDescription == synthesizedKeyCountMessage
    {
      // The synthesized init found no case key it knows: name the tag.
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: [JSONCodingKey(stringValue: TaggedCoding.typeKey)],
          debugDescription: "unknown \"type\" \"\(tag)\" for \(T.self)",
          underlyingError: DecodingError.typeMismatch(type, context)))
    }
  }
}

/// What synthesized enum `init(from:)` says when the case key is unknown.
private let synthesizedKeyCountMessage = "Invalid number of keys found, expected one."

extension JSONValueEncoder {
  /// Encodes an enum with synthesized `Codable` into the flat shape
  /// `{"type": "case", ...payload}`.
  public func encodeTagged<T: Encodable>(_ value: T) throws -> JSONValue {
    let nested = try encode(value)
    do {
      return try TaggedCoding.flatten(nested)
    } catch {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: [], debugDescription: describeDecodingError(error), underlyingError: error))
    }
  }
}
