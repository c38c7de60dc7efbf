/// Why and where a JSON text was rejected.
///
/// `offset` is a 0-based byte offset into the UTF-8 input so callers holding
/// raw buffers (C strings from plugins) can point at the exact byte.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong, e.g. `expected ',' or '}' after object member`.
  public let message: String
  /// 0-based byte offset of the offending input.
  public let offset: Int

  public init(message: String, offset: Int) {
    self.message = message
    self.offset = offset
  }

  public var description: String {
    "invalid JSON at byte \(offset): \(message)"
  }
}
