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
    var payload: [FlatObject.Member] = []
    payload.reserveCapacity(members.count)
    for (key, value) in members where key != TaggedCoding.typeKey {
      payload.append(FlatObject.Member(key: key, value: value))
    }
    return try decodeTagged(type, tag: tag, payload: payload)
  }

  /// `decodeTagged(_:from:)` for an object read with `FlatObject.parse`: the path actions take
  /// across the plugin ABI, with no dictionary built.
  public func decodeTagged<T: Decodable>(_ type: T.Type, from flat: FlatObject) throws -> T {
    if T.self == JSONValue.self { return try decodeTagged(type, from: flat.value) }
    var tag: String?
    var payload: [FlatObject.Member] = []
    payload.reserveCapacity(flat.members.count)
    for member in flat.members {
      guard member.key == TaggedCoding.typeKey else {
        payload.append(member)
        continue
      }
      guard case .string(let name) = member.value else {
        let error = TaggedCodingError(message: "\"type\" must be a string, found \(describeFound(member.value))")
        throw DecodingError.dataCorrupted(
          DecodingError.Context(codingPath: [], debugDescription: error.message, underlyingError: error))
      }
      tag = name
    }
    guard let tag else {
      let error = TaggedCodingError(message: "missing \"type\" member in tagged object")
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: [], debugDescription: error.message, underlyingError: error))
    }
    return try decodeTagged(type, tag: tag, payload: payload)
  }

  private func decodeTagged<T: Decodable>(
    _ type: T.Type, tag: String, payload: [FlatObject.Member]
  ) throws -> T {
    do {
      // Decodes against a view of the nested shape; no nested copy is built.
      // Converting the Sendable-typed dictionary costs a copy even when empty.
      var info: [CodingUserInfoKey: Any] = [:]
      if !userInfo.isEmpty { info = userInfo }
      return try T(from: TaggedDecoderImpl(tag: tag, payload: payload, userInfo: info))
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
