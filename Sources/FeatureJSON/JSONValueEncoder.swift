/// Encodes any `Encodable` into a `JSONValue` tree (not text), so a value
/// can be inspected, reshaped (see `TaggedCoding`) or serialized later.
public struct JSONValueEncoder: Sendable {
  /// Handed to `Encodable` implementations as `Encoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

  public init() {}

  /// Encodes `value`. Throws `EncodingError.invalidValue` for non-finite
  /// floats, integers outside `Int64`, misuse of containers, and top-level
  /// values that encode nothing.
  public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
    let state = EncoderState(userInfo: userInfo)
    let encoder = JSONEncoderImpl(state: state, codingPath: [])
    try value.encode(to: encoder)
    if let misuse = state.misuse {
      throw misuse
    }
    guard let result = encoder.resolvedValue else {
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: [], debugDescription: "top-level \(T.self) did not encode any values"))
    }
    return result
  }
}
