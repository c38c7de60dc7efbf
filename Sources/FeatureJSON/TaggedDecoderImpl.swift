/// Decoder that shows a flat tagged object, `{"type": "set", "left": 3}`,
/// to `init(from:)` as if it were the nested `{"set": {"left": 3}}` without
/// building the nested dictionary. Synthesized enum decoding only asks for
/// `allKeys` and one nested container, and those are answered directly from
/// the payload members in document order; anything else falls back to the
/// materialized nested value.
final class TaggedDecoderImpl: Decoder {
  let tag: String
  /// The flat members except `type`.
  let payload: [FlatObject.Member]
  let userInfo: [CodingUserInfoKey: Any]

  var codingPath: [any CodingKey] { [] }

  init(tag: String, payload: [FlatObject.Member], userInfo: [CodingUserInfoKey: Any]) {
    self.tag = tag
    self.payload = payload
    self.userInfo = userInfo
  }

  /// The payload as an object's members, for the rare callers that need a dictionary.
  var payloadObject: [String: JSONValue] {
    Dictionary(payload.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
  }

  /// The nested shape, for the rare callers that need it whole.
  var nestedDecoder: JSONDecoderImpl {
    JSONDecoderImpl(value: .object([tag: .object(payloadObject)]), codingPath: [], userInfo: userInfo)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(TaggedKeyedDecodingContainer<Key>(decoder: self))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try nestedDecoder.unkeyedContainer()
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    nestedDecoder
  }
}
