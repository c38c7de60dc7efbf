/// Decoder that shows a flat tagged object, `{"type": "set", "left": 3}`,
/// to `init(from:)` as if it were the nested `{"set": {"left": 3}}` without
/// building the nested dictionary. Synthesized enum decoding only asks for
/// `allKeys` and one nested container, and those are answered directly;
/// anything else falls back to the materialized nested value.
final class TaggedDecoderImpl: Decoder {
  let tag: String
  /// The flat members, including `type`.
  let members: [String: JSONValue]
  let userInfo: [CodingUserInfoKey: Any]

  var codingPath: [any CodingKey] { [] }

  init(tag: String, members: [String: JSONValue], userInfo: [CodingUserInfoKey: Any]) {
    self.tag = tag
    self.members = members
    self.userInfo = userInfo
  }

  /// The payload object: every flat member except `type`.
  var payload: [String: JSONValue] {
    guard members.count > 1 else { return [:] }
    var payload = members
    payload.removeValue(forKey: TaggedCoding.typeKey)
    return payload
  }

  /// The nested shape, for the rare callers that need it whole.
  var nestedDecoder: JSONDecoderImpl {
    JSONDecoderImpl(value: .object([tag: .object(payload)]), codingPath: [], userInfo: userInfo)
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
