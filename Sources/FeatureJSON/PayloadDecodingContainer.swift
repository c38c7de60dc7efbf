/// Keyed container over the payload of a flat tagged object: the members besides `type`, in
/// document order. A few members, so a linear search beats hashing; the wording of every error
/// is `JSONKeyedDecodingContainer`'s.
struct PayloadDecodingContainer<Key: CodingKey>: IntegerKeyedDecodingContainer {
  let payload: [FlatObject.Member]
  /// The enum case the payload belongs to: the whole coding path.
  let caseKey: any CodingKey
  let userInfo: [CodingUserInfoKey: Any]

  var codingPath: [any CodingKey] { [caseKey] }

  var allKeys: [Key] {
    var keys: [Key] = []
    keys.reserveCapacity(payload.count)
    for member in payload {
      if let key = Key(stringValue: member.key) { keys.append(key) }
    }
    return keys
  }

  private func find(_ key: Key) -> JSONValue? {
    let name = key.stringValue
    for member in payload where member.key == name { return member.value }
    return nil
  }

  func contains(_ key: Key) -> Bool { find(key) != nil }

  private func value(for key: Key) throws -> JSONValue {
    guard let value = find(key) else {
      throw DecodingError.keyNotFound(
        key,
        DecodingError.Context(
          codingPath: codingPath, debugDescription: "missing key \"\(key.stringValue)\""))
    }
    return value
  }

  private var members: JSONKeyedDecodingContainer<Key> {
    JSONKeyedDecodingContainer(
      members: Dictionary(payload.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
      codingPath: codingPath,
      userInfo: userInfo)
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    if case .null = try value(for: key) { return true }
    return false
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try PrimitiveUnbox.bool(value(for: key), at: [caseKey, key])
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try PrimitiveUnbox.string(value(for: key), at: [caseKey, key])
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try PrimitiveUnbox.double(value(for: key), at: [caseKey, key])
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try PrimitiveUnbox.float(value(for: key), at: [caseKey, key])
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decodeValue(type, from: value(for: key), at: [caseKey, key], userInfo: userInfo)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try members.nestedContainer(keyedBy: type, forKey: key)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try members.nestedUnkeyedContainer(forKey: key)
  }

  func superDecoder() throws -> any Decoder { try members.superDecoder() }

  func superDecoder(forKey key: Key) throws -> any Decoder { try members.superDecoder(forKey: key) }

  func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T {
    try PrimitiveUnbox.integer(value(for: key), as: type, at: [caseKey, key])
  }
}
