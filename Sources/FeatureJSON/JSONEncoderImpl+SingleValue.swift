// The encoder doubles as its single value container.

extension JSONEncoderImpl: SingleValueEncodingContainer {
  func encodeNil() throws { setSingleValue(.null) }
  func encode(_ value: Bool) throws { setSingleValue(.bool(value)) }
  func encode(_ value: String) throws { setSingleValue(.string(value)) }

  func encode(_ value: Double) throws {
    setSingleValue(try PrimitiveBox.double(value, at: codingPath))
  }

  func encode(_ value: Float) throws {
    setSingleValue(try PrimitiveBox.float(value, at: codingPath))
  }

  func encode(_ value: Int) throws { try encodeInteger(value) }
  func encode(_ value: Int8) throws { try encodeInteger(value) }
  func encode(_ value: Int16) throws { try encodeInteger(value) }
  func encode(_ value: Int32) throws { try encodeInteger(value) }
  func encode(_ value: Int64) throws { try encodeInteger(value) }
  func encode(_ value: UInt) throws { try encodeInteger(value) }
  func encode(_ value: UInt8) throws { try encodeInteger(value) }
  func encode(_ value: UInt16) throws { try encodeInteger(value) }
  func encode(_ value: UInt32) throws { try encodeInteger(value) }
  func encode(_ value: UInt64) throws { try encodeInteger(value) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func encode(_ value: Int128) throws { try encodeInteger(value) }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  func encode(_ value: UInt128) throws { try encodeInteger(value) }

  func encode<T: Encodable>(_ value: T) throws {
    guard content == nil else {
      state.recordMisuse(
        "encoded a second value through a single value container", codingPath: codingPath)
      return
    }
    // Encode in place: the value's own containers land on this encoder.
    try value.encode(to: self)
  }

  private func encodeInteger<T: BinaryInteger>(_ value: T) throws {
    setSingleValue(try PrimitiveBox.integer(value, at: codingPath))
  }
}
