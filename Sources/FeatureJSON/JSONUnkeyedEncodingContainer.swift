/// Unkeyed container appending to a shared `EncodedArray`.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer, IntegerValueEncodingContainer {
  let state: EncoderState
  let codingPath: [any CodingKey]
  let array: EncodedArray

  var count: Int { array.elements.count }

  /// Path of the element about to be appended, for errors and nested values.
  private var nextPath: [any CodingKey] { codingPath + [JSONCodingKey(index: count)] }

  private func append(_ value: JSONValue) {
    array.elements.append(.value(value))
  }

  mutating func encodeNil() throws { append(.null) }
  mutating func encode(_ value: Bool) throws { append(.bool(value)) }
  mutating func encode(_ value: String) throws { append(.string(value)) }

  mutating func encode(_ value: Double) throws {
    append(try PrimitiveBox.double(value, at: nextPath))
  }

  mutating func encode(_ value: Float) throws {
    append(try PrimitiveBox.float(value, at: nextPath))
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    array.elements.append(try state.node(for: value, codingPath: nextPath))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = EncodedObject()
    let path = nextPath
    array.elements.append(.object(nested))
    return KeyedEncodingContainer(
      JSONKeyedEncodingContainer<NestedKey>(state: state, codingPath: path, object: nested))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let nested = EncodedArray()
    let path = nextPath
    array.elements.append(.array(nested))
    return JSONUnkeyedEncodingContainer(state: state, codingPath: path, array: nested)
  }

  mutating func superEncoder() -> any Encoder {
    let encoder = JSONEncoderImpl(state: state, codingPath: nextPath)
    array.elements.append(.encoder(encoder))
    return encoder
  }

  func encodeInteger<T: BinaryInteger>(_ value: T) throws {
    append(try PrimitiveBox.integer(value, at: nextPath))
  }
}
