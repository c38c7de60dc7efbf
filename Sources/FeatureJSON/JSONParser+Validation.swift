// Checking a document without building it: the same grammar, limits and messages as the parser,
// but only object keys are kept (to refuse a duplicate), so checking a large state costs its keys,
// not a tree.

extension JSONParser {
  /// Checks exactly one value surrounded by optional whitespace; throws what `parseDocument` would.
  mutating func skipDocument() throws(JSONParseError) { _ = try skipDocument(watching: nil) }

  /// `skipDocument`, also saying whether the value is an object and, when `key` is given, the
  /// first byte of that member's value (nil: no such member).
  mutating func skipDocument(watching key: String?) throws(JSONParseError) -> (isObject: Bool, watched: UInt8?) {
    skipWhitespace()
    if index >= count {
      throw JSONParseError(message: "unexpected end of input, expected a JSON value", offset: index)
    }
    let isObject = bytes[index] == .openBrace
    let watched = isObject ? try skipObject(watching: key) : nil
    if !isObject { try skipValue() }
    skipWhitespace()
    if index < count {
      throw JSONParseError(
        message: "unexpected \(describeByte(at: index)) after the top-level value", offset: index)
    }
    return (isObject, watched)
  }

  mutating func skipValue() throws(JSONParseError) {
    guard index < count else { throw failure("expected a JSON value") }
    switch bytes[index] {
    case .quote:
      index += 1
      try skipString()
    case .openBrace:
      try skipObject()
    case .openBracket:
      try skipArray()
    default:
      // Scalars allocate nothing (a number is read into a `JSONNumber`).
      _ = try parseValue()
    }
  }

  /// The first byte of the `watched` member's value, if it has one.
  @discardableResult
  private mutating func skipObject(watching watchedKey: String? = nil) throws(JSONParseError) -> UInt8? {
    if try enterContainer(closedBy: .closeBrace) { return nil }
    // A few keys are compared one by one; a set takes over for many.
    var keys: [String] = []
    var keySet: Set<String> = []
    var watched: UInt8?
    while true {
      let (key, keyOffset) = try memberKey()
      // `memberKey` stops at the value's first byte.
      if let watchedKey, index < count, key == watchedKey { watched = bytes[index] }
      try skipValue()
      // After the value, as the parser does: a bad value is reported before a duplicate key.
      let duplicate: Bool
      if keys.count < 16 {
        duplicate = keys.contains(key)
        keys.append(key)
        if keys.count == 16 { keySet = Set(keys) }
      } else {
        duplicate = !keySet.insert(key).inserted
      }
      if duplicate {
        throw JSONParseError(message: "duplicate key \"\(key)\" in object", offset: keyOffset)
      }
      if try containerEnds(closedBy: .closeBrace) { return watched }
    }
  }

  private mutating func skipArray() throws(JSONParseError) {
    if try enterContainer(closedBy: .closeBracket) { return }
    while true {
      try skipValue()
      if try containerEnds(closedBy: .closeBracket) { return }
    }
  }
}
