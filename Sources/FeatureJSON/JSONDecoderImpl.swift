/// The `Decoder` handed to `Decodable.init(from:)`; also its own single value
/// container, which saves an allocation per value.
final class JSONDecoderImpl: Decoder {
  let value: JSONValue
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: Any]

  init(value: JSONValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
    self.value = value
    self.codingPath = codingPath
    self.userInfo = userInfo
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = value else {
      throw PrimitiveUnbox.mismatch(
        [String: JSONValue].self, expected: "an object", found: value, at: codingPath)
    }
    return KeyedDecodingContainer(
      JSONKeyedDecodingContainer<Key>(members: members, codingPath: codingPath, userInfo: userInfo))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else {
      throw PrimitiveUnbox.mismatch(
        [JSONValue].self, expected: "an array", found: value, at: codingPath)
    }
    return JSONUnkeyedDecodingContainer(
      elements: elements, codingPath: codingPath, userInfo: userInfo)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    self
  }
}

extension JSONDecoderImpl: SingleValueDecodingContainer {
  func decodeNil() -> Bool {
    if case .null = value {
      return true
    }
    return false
  }

  func decode(_ type: Bool.Type) throws -> Bool { try PrimitiveUnbox.bool(value, at: codingPath) }

  func decode(_ type: String.Type) throws -> String {
    try PrimitiveUnbox.string(value, at: codingPath)
  }

  func decode(_ type: Double.Type) throws -> Double {
    try PrimitiveUnbox.double(value, at: codingPath)
  }

  func decode(_ type: Float.Type) throws -> Float {
    try PrimitiveUnbox.float(value, at: codingPath)
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decodeValue(type, from: value, at: codingPath, userInfo: userInfo)
  }

  // Written out: SingleValueDecodingContainer's `decode` is not mutating, so the (mutating)
  // overloads of IntegerValueDecodingContainer cannot serve it; the generic `decode` would.
  func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: Int128.Type) throws -> Int128 { try decodeInteger(type) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeInteger(type) }

  private func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    try PrimitiveUnbox.integer(value, as: type, at: codingPath)
  }
}
