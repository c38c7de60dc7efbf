/// The `Encoder` handed to `Encodable.encode(to:)`; also its own single
/// value container, which saves an allocation per value.
final class JSONEncoderImpl: Encoder {
  let state: EncoderState
  let codingPath: [any CodingKey]
  /// What has been encoded here so far; `nil` until something is.
  private(set) var content: EncodedNode?

  var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

  init(state: EncoderState, codingPath: [any CodingKey]) {
    self.state = state
    self.codingPath = codingPath
  }

  var resolvedValue: JSONValue? { content?.resolved }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let object: EncodedObject
    switch content {
    case .object(let existing)?:
      object = existing
    case nil:
      object = EncodedObject()
      content = .object(object)
    default:
      state.recordMisuse(
        "requested a keyed container after encoding another kind of value here",
        codingPath: codingPath)
      object = EncodedObject()
    }
    return KeyedEncodingContainer(
      JSONKeyedEncodingContainer(state: state, codingPath: codingPath, object: object))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    let array: EncodedArray
    switch content {
    case .array(let existing)?:
      array = existing
    case nil:
      array = EncodedArray()
      content = .array(array)
    default:
      state.recordMisuse(
        "requested an unkeyed container after encoding another kind of value here",
        codingPath: codingPath)
      array = EncodedArray()
    }
    return JSONUnkeyedEncodingContainer(state: state, codingPath: codingPath, array: array)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    self
  }

  /// Stores a single value, recording misuse if something is already here.
  func setSingleValue(_ value: JSONValue) {
    guard content == nil else {
      state.recordMisuse(
        "encoded a second value through a single value container", codingPath: codingPath)
      return
    }
    content = .value(value)
  }
}
