/// A keyed encoding container whose integer `encode` overloads all go to one generic
/// `encodeInteger`: the overloads Codable asks for are written here once.
protocol IntegerKeyedEncodingContainer: KeyedEncodingContainerProtocol {
  mutating func encodeInteger<T: BinaryInteger>(_ value: T, forKey key: Key) throws
}

extension IntegerKeyedEncodingContainer {
  mutating func encode(_ value: Int, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeInteger(value, forKey: key) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func encode(_ value: Int128, forKey key: Key) throws { try encodeInteger(value, forKey: key) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func encode(_ value: UInt128, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
}

/// A keyed decoding container whose integer `decode` overloads all go to one generic
/// `decodeInteger`.
protocol IntegerKeyedDecodingContainer: KeyedDecodingContainerProtocol {
  func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T
}

extension IntegerKeyedDecodingContainer {
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeInteger(type, forKey: key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeInteger(type, forKey: key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeInteger(type, forKey: key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeInteger(type, forKey: key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeInteger(type, forKey: key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeInteger(type, forKey: key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeInteger(type, forKey: key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeInteger(type, forKey: key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeInteger(type, forKey: key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeInteger(type, forKey: key) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodeInteger(type, forKey: key) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodeInteger(type, forKey: key) }
}

/// A single value or unkeyed encoding container whose integer `encode` overloads all go to one
/// generic `encodeInteger`.
protocol IntegerValueEncodingContainer {
  mutating func encodeInteger<T: BinaryInteger>(_ value: T) throws
}

extension IntegerValueEncodingContainer {
  mutating func encode(_ value: Int) throws { try encodeInteger(value) }
  mutating func encode(_ value: Int8) throws { try encodeInteger(value) }
  mutating func encode(_ value: Int16) throws { try encodeInteger(value) }
  mutating func encode(_ value: Int32) throws { try encodeInteger(value) }
  mutating func encode(_ value: Int64) throws { try encodeInteger(value) }
  mutating func encode(_ value: UInt) throws { try encodeInteger(value) }
  mutating func encode(_ value: UInt8) throws { try encodeInteger(value) }
  mutating func encode(_ value: UInt16) throws { try encodeInteger(value) }
  mutating func encode(_ value: UInt32) throws { try encodeInteger(value) }
  mutating func encode(_ value: UInt64) throws { try encodeInteger(value) }
}

/// A single value or unkeyed decoding container whose integer `decode` overloads all go to one
/// generic `decodeInteger`.
protocol IntegerValueDecodingContainer {
  mutating func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T
}

extension IntegerValueDecodingContainer {
  mutating func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }
}

// The standard library gives the 128-bit overloads defaults of its own: these, constrained to
// each container protocol, are more specific and win.
extension IntegerValueEncodingContainer where Self: SingleValueEncodingContainer {
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func encode(_ value: Int128) throws { try encodeInteger(value) }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func encode(_ value: UInt128) throws { try encodeInteger(value) }
}

extension IntegerValueEncodingContainer where Self: UnkeyedEncodingContainer {
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func encode(_ value: Int128) throws { try encodeInteger(value) }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func encode(_ value: UInt128) throws { try encodeInteger(value) }
}

// The standard library gives the 128-bit overloads defaults of its own: these, constrained to
// each container protocol, are more specific and win.
extension IntegerValueDecodingContainer where Self: SingleValueDecodingContainer {
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodeInteger(type) }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeInteger(type) }
}

extension IntegerValueDecodingContainer where Self: UnkeyedDecodingContainer {
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodeInteger(type) }
  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeInteger(type) }
}
