/// Unkeyed container over an array's elements. The index only advances
/// when a decode succeeds, so callers may retry with another type.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
  let elements: [JSONValue]
  let codingPath: [any CodingKey]
  let userInfo: [CodingUserInfoKey: Any]
  private(set) var currentIndex = 0

  init(elements: [JSONValue], codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
    self.elements = elements
    self.codingPath = codingPath
    self.userInfo = userInfo
  }

  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  private var currentPath: [any CodingKey] {
    codingPath + [JSONCodingKey(index: currentIndex)]
  }

  private func current(_ type: Any.Type) throws -> JSONValue {
    guard currentIndex < elements.count else {
      throw DecodingError.valueNotFound(
        type,
        DecodingError.Context(
          codingPath: currentPath,
          debugDescription: "expected a value at index \(currentIndex), but the array has only "
            + "\(elements.count) elements"))
    }
    return elements[currentIndex]
  }

  /// Returns `value` and moves past the current element.
  private mutating func advance<T>(_ value: T) -> T {
    currentIndex += 1
    return value
  }

  mutating func decodeNil() throws -> Bool {
    guard case .null = try current(JSONValue.self) else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool {
    advance(try PrimitiveUnbox.bool(current(type), at: currentPath))
  }

  mutating func decode(_ type: String.Type) throws -> String {
    advance(try PrimitiveUnbox.string(current(type), at: currentPath))
  }

  mutating func decode(_ type: Double.Type) throws -> Double {
    advance(try PrimitiveUnbox.double(current(type), at: currentPath))
  }

  mutating func decode(_ type: Float.Type) throws -> Float {
    advance(try PrimitiveUnbox.float(current(type), at: currentPath))
  }

  mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    advance(try decodeValue(type, from: current(type), at: currentPath, userInfo: userInfo))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    advance(try currentDecoder(JSONValue.self).container(keyedBy: type))
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    advance(try currentDecoder(JSONValue.self).unkeyedContainer())
  }

  mutating func superDecoder() throws -> any Decoder {
    advance(try currentDecoder(JSONValue.self))
  }

  private func currentDecoder(_ type: Any.Type) throws -> JSONDecoderImpl {
    JSONDecoderImpl(value: try current(type), codingPath: currentPath, userInfo: userInfo)
  }

  private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    advance(try PrimitiveUnbox.integer(current(type), as: type, at: currentPath))
  }
}
