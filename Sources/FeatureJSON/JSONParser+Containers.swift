// The steps every object and array walk shares (the parser, the checker, the flat parser): into
// the container, a member's key, and what follows a member or element. Inlined: they run for
// every member of every document.

extension JSONParser {
  /// At `{` or `[`: enters one more level and steps inside. True when the container is empty:
  /// its `close` is taken too and the level left.
  @inline(__always)
  mutating func enterContainer(closedBy close: UInt8) throws(JSONParseError) -> Bool {
    try enterNesting()
    index += 1
    skipWhitespace()
    guard index < count, bytes[index] == close else { return false }
    index += 1
    depth -= 1
    return true
  }

  /// An object member's key and the `:` after it, up to its value: the key and where it began.
  @inline(__always)
  mutating func memberKey() throws(JSONParseError) -> (key: String, offset: Int) {
    guard index < count, bytes[index] == .quote else {
      throw failure("expected '\"' to start an object key")
    }
    let offset = index
    index += 1
    let key = try parseString()
    skipWhitespace()
    guard index < count, bytes[index] == .colon else {
      throw failure("expected ':' after object key")
    }
    index += 1
    skipWhitespace()
    return (key, offset)
  }

  /// After a member (`close` is `}`) or an element (`]`): false after a `,` (another follows),
  /// true after `close` (the container ended, its level left).
  @inline(__always)
  mutating func containerEnds(closedBy close: UInt8) throws(JSONParseError) -> Bool {
    skipWhitespace()
    guard index < count else { throw failure(Self.separatorExpected(close)) }
    switch bytes[index] {
    case .comma:
      let commaOffset = index
      index += 1
      skipWhitespace()
      if index < count, bytes[index] == close {
        throw JSONParseError(message: "trailing comma before '\(Character(UnicodeScalar(close)))'", offset: commaOffset)
      }
      return false
    case close:
      index += 1
      depth -= 1
      return true
    default:
      throw failure(Self.separatorExpected(close))
    }
  }

  private static func separatorExpected(_ close: UInt8) -> String {
    close == .closeBrace ? "expected ',' or '}' after object member" : "expected ',' or ']' after array element"
  }
}
