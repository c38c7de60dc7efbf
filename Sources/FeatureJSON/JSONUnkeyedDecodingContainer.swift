/// Unkeyed container over an array's elements. The index only advances
/// when a decode succeeds, so callers may retry with another type.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer, IntegerValueDecodingContainer {
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

  mutating func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    advance(try PrimitiveUnbox.integer(current(type), as: type, at: currentPath))
  }
}
