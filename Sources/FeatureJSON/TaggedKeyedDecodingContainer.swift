/// The outer keyed container of `TaggedDecoderImpl`: one key, the tag.
struct TaggedKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: TaggedDecoderImpl

  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] {
    guard let key = Key(stringValue: decoder.tag) else { return [] }
    return [key]
  }

  func contains(_ key: Key) -> Bool { key.stringValue == decoder.tag }

  /// Everything but the hot path goes through the materialized nested value.
  private var nested: JSONKeyedDecodingContainer<Key> {
    JSONKeyedDecodingContainer(
      members: [decoder.tag: .object(decoder.payloadObject)], codingPath: [],
      userInfo: decoder.userInfo)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    guard key.stringValue == decoder.tag else {
      return try nested.nestedContainer(keyedBy: type, forKey: key)
    }
    return KeyedDecodingContainer(
      PayloadDecodingContainer<NestedKey>(payload: decoder.payload, caseKey: key, userInfo: decoder.userInfo))
  }

  func decodeNil(forKey key: Key) throws -> Bool { try nested.decodeNil(forKey: key) }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try nested.decode(type, forKey: key)
  }

  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try nested.decode(type, forKey: key)
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
    try nested.decode(type, forKey: key)
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
    try nested.decode(type, forKey: key)
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try nested.decode(type, forKey: key)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try nested.nestedUnkeyedContainer(forKey: key)
  }

  func superDecoder() throws -> any Decoder { try nested.superDecoder() }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    try nested.superDecoder(forKey: key)
  }
}
