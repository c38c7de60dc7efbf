// The encoder doubles as its single value container.

extension JSONEncoderImpl: SingleValueEncodingContainer, IntegerValueEncodingContainer {
  func encodeNil() throws { setSingleValue(.null) }
  func encode(_ value: Bool) throws { setSingleValue(.bool(value)) }
  func encode(_ value: String) throws { setSingleValue(.string(value)) }

  func encode(_ value: Double) throws {
    setSingleValue(try PrimitiveBox.double(value, at: codingPath))
  }

  func encode(_ value: Float) throws {
    setSingleValue(try PrimitiveBox.float(value, at: codingPath))
  }

  func encode<T: Encodable>(_ value: T) throws {
    guard content == nil else {
      state.recordMisuse(
        "encoded a second value through a single value container", codingPath: codingPath)
      return
    }
    // Encode in place: the value's own containers land on this encoder.
    try value.encode(to: self)
  }

  func encodeInteger<T: BinaryInteger>(_ value: T) throws {
    setSingleValue(try PrimitiveBox.integer(value, at: codingPath))
  }
}
