/// Keyed container writing into a shared `EncodedObject`.
struct JSONKeyedEncodingContainer<Key: CodingKey>: IntegerKeyedEncodingContainer {
  let state: EncoderState
  let codingPath: [any CodingKey]
  let object: EncodedObject

  private func set(_ value: JSONValue, for key: Key) {
    object.members[key.stringValue] = .value(value)
  }

  mutating func encodeNil(forKey key: Key) throws { set(.null, for: key) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), for: key) }
  mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), for: key) }

  mutating func encode(_ value: Double, forKey key: Key) throws {
    set(try PrimitiveBox.double(value, at: codingPath + [key]), for: key)
  }

  mutating func encode(_ value: Float, forKey key: Key) throws {
    set(try PrimitiveBox.float(value, at: codingPath + [key]), for: key)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    object.members[key.stringValue] = try state.node(for: value, codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let nested = EncodedObject()
    object.members[key.stringValue] = .object(nested)
    return KeyedEncodingContainer(
      JSONKeyedEncodingContainer<NestedKey>(
        state: state, codingPath: codingPath + [key], object: nested))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let nested = EncodedArray()
    object.members[key.stringValue] = .array(nested)
    return JSONUnkeyedEncodingContainer(
      state: state, codingPath: codingPath + [key], array: nested)
  }

  mutating func superEncoder() -> any Encoder {
    superEncoder(named: JSONCodingKey.superKey)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    superEncoder(named: key)
  }

  private func superEncoder(named key: any CodingKey) -> any Encoder {
    let encoder = JSONEncoderImpl(state: state, codingPath: codingPath + [key])
    object.members[key.stringValue] = .encoder(encoder)
    return encoder
  }

  func encodeInteger<T: BinaryInteger>(_ value: T, forKey key: Key) throws {
    set(try PrimitiveBox.integer(value, at: codingPath + [key]), for: key)
  }
}
