/// Keyed container over an object's members.
struct JSONKeyedDecodingContainer<Key: CodingKey>: IntegerKeyedDecodingContainer {
  let members: [String: JSONValue]
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: Any]

  /// Members whose names are valid keys of `Key`. A plain loop: this runs
  /// unspecialized for every synthesized enum decode, and `compactMap`'s
  /// closure and growth cost more than the work itself.
  var allKeys: [Key] {
    var keys: [Key] = []
    keys.reserveCapacity(members.count)
    for name in members.keys {
      if let key = Key(stringValue: name) {
        keys.append(key)
      }
    }
    return keys
  }

  func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

  private func value(for key: Key) throws -> JSONValue {
    guard let value = members[key.stringValue] else {
      throw DecodingError.keyNotFound(
        key,
        DecodingError.Context(
          codingPath: codingPath, debugDescription: "missing key \"\(key.stringValue)\""))
    }
    return value
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    if case .null = try value(for: key) {
      return true
    }
    return false
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try PrimitiveUnbox.bool(value(for: key), at: codingPath + [key])
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try PrimitiveUnbox.string(value(for: key), at: codingPath + [key])
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try PrimitiveUnbox.double(value(for: key), at: codingPath + [key])
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try PrimitiveUnbox.float(value(for: key), at: codingPath + [key])
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decodeValue(type, from: value(for: key), at: codingPath + [key], userInfo: userInfo)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let value = try value(for: key)
    guard case .object(let nested) = value else {
      throw PrimitiveUnbox.mismatch(
        [String: JSONValue].self, expected: "an object", found: value, at: codingPath + [key])
    }
    return KeyedDecodingContainer(
      JSONKeyedDecodingContainer<NestedKey>(
        members: nested, codingPath: codingPath + [key], userInfo: userInfo))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let value = try value(for: key)
    guard case .array(let elements) = value else {
      throw PrimitiveUnbox.mismatch(
        [JSONValue].self, expected: "an array", found: value, at: codingPath + [key])
    }
    return JSONUnkeyedDecodingContainer(
      elements: elements, codingPath: codingPath + [key], userInfo: userInfo)
  }

  /// A missing `super` member decodes as `null`, as in Foundation.
  func superDecoder() throws -> any Decoder {
    decoder(for: members[JSONCodingKey.superKey.stringValue] ?? .null, key: JSONCodingKey.superKey)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    decoder(for: members[key.stringValue] ?? .null, key: key)
  }

  private func decoder(for value: JSONValue, key: any CodingKey) -> JSONDecoderImpl {
    JSONDecoderImpl(value: value, codingPath: codingPath + [key], userInfo: userInfo)
  }

  func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T {
    try PrimitiveUnbox.integer(value(for: key), as: type, at: codingPath + [key])
  }
}
