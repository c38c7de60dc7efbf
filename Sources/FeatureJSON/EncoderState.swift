/// State shared by every encoder and container of one `encode` call.
///
/// Container misuse (say, a keyed container after a single value) cannot
/// throw where it happens, and trapping would take a host process down with
/// a plugin, so the first misuse is recorded here and thrown at the end.
final class EncoderState {
  let userInfo: [CodingUserInfoKey: Any]
  private(set) var misuse: EncodingError?

  init(userInfo: [CodingUserInfoKey: any Sendable]) {
    self.userInfo = userInfo
  }

  func recordMisuse(_ message: String, codingPath: [any CodingKey]) {
    if misuse == nil {
      misuse = .invalidValue(
        message, EncodingError.Context(codingPath: codingPath, debugDescription: message))
    }
  }

  /// Encodes a nested value through a fresh encoder at `codingPath`.
  func node<T: Encodable>(for value: T, codingPath: [any CodingKey]) throws -> EncodedNode {
    let encoder = JSONEncoderImpl(state: self, codingPath: codingPath)
    try value.encode(to: encoder)
    // Nothing written (e.g. an empty struct with custom coding) reads as {}.
    return .value(encoder.resolvedValue ?? .object([:]))
  }
}
