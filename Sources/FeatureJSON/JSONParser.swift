/// Strict RFC 8259 recursive-descent parser over borrowed UTF-8 bytes.
///
/// It reads straight from a buffer so Swift strings and NUL-terminated C
/// strings share one path and no intermediate `String` of the document is
/// built. Only string contents with escapes go through a scratch buffer.
struct JSONParser {
  /// Deepest allowed nesting of arrays and objects; deeper input is rejected
  /// so hostile input cannot exhaust the stack.
  static let maxDepth = 512

  let bytes: UnsafePointer<UInt8>
  let count: Int
  var index = 0
  var depth = 0
  /// Reused buffer for decoding strings that contain escapes.
  var scratch: [UInt8] = []
  /// Reads an array whose elements are all scalars as empty (`JSONValue.parseMembers`).
  var membersOnly = false

  init(bytes: UnsafePointer<UInt8>, count: Int) {
    self.bytes = bytes
    self.count = count
  }

  /// Parses exactly one value surrounded by optional whitespace.
  mutating func parseDocument() throws(JSONParseError) -> JSONValue {
    skipWhitespace()
    if index >= count {
      throw JSONParseError(message: "unexpected end of input, expected a JSON value", offset: index)
    }
    let value = try parseValue()
    skipWhitespace()
    if index < count {
      throw JSONParseError(
        message: "unexpected \(describeByte(at: index)) after the top-level value", offset: index)
    }
    return value
  }

  mutating func parseValue() throws(JSONParseError) -> JSONValue {
    guard index < count else { throw failure("expected a JSON value") }
    switch bytes[index] {
    case .quote:
      index += 1
      return .string(try parseString())
    case .openBrace:
      return try parseObject()
    case .openBracket:
      return try parseArray()
    case .minus, .asciiZero ... .asciiNine:
      return .number(try parseNumber())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "N"), UInt8(ascii: "I"):
      throw JSONParseError(message: "NaN and Infinity are not valid JSON", offset: index)
    default:
      throw JSONParseError(
        message: "unexpected \(describeByte(at: index)), expected a JSON value", offset: index)
    }
  }

  mutating func parseObject() throws(JSONParseError) -> JSONValue {
    if try enterContainer(closedBy: .closeBrace) { return .object([:]) }
    var members: [String: JSONValue] = [:]
    while true {
      let (key, keyOffset) = try memberKey()
      let value = try parseValue()
      if members.isEmpty {
        // A literal allocates at size 1 and hashes once; inserting into the
        // empty singleton would hash, resize, and hash again.
        members = [key: value]
      } else if members.updateValue(value, forKey: key) != nil {
        throw JSONParseError(message: "duplicate key \"\(key)\" in object", offset: keyOffset)
      }
      if try containerEnds(closedBy: .closeBrace) { return .object(members) }
    }
  }

  mutating func parseArray() throws(JSONParseError) -> JSONValue {
    if try enterContainer(closedBy: .closeBracket) { return .array([]) }
    var elements: [JSONValue] = []
    // Leading scalars not kept (membersOnly): `null`s stand in for them if a container follows.
    var skippedScalars = 0
    while true {
      let element = try parseValue()
      if membersOnly, elements.isEmpty, element.isScalar {
        skippedScalars += 1
      } else {
        if skippedScalars > 0 {
          elements.append(contentsOf: repeatElement(.null, count: skippedScalars))
          skippedScalars = 0
        }
        elements.append(element)
      }
      if try containerEnds(closedBy: .closeBracket) { return .array(elements) }
    }
  }

  mutating func enterNesting() throws(JSONParseError) {
    depth += 1
    if depth > Self.maxDepth {
      throw JSONParseError(
        message: "nesting deeper than \(Self.maxDepth) arrays/objects", offset: index)
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
    let length = literal.utf8CodeUnitCount
    let expected = literal.utf8Start
    var offset = 0
    while offset < length {
      guard index + offset < count, bytes[index + offset] == expected[offset] else {
        throw JSONParseError(message: "invalid literal, expected '\(literal)'", offset: index)
      }
      offset += 1
    }
    index += length
  }

  mutating func skipWhitespace() {
    while index < count {
      switch bytes[index] {
      case .space, .tab, .newline, .carriageReturn: index += 1
      default: return
      }
    }
  }

  /// An error at the current position, phrased for the end of input when
  /// the document stops early.
  func failure(_ expectation: String) -> JSONParseError {
    if index >= count {
      return JSONParseError(message: "unexpected end of input, \(expectation)", offset: index)
    }
    return JSONParseError(message: expectation, offset: index)
  }

  /// `'x'` for printable ASCII, `byte 0xNN` otherwise, for error messages.
  func describeByte(at offset: Int) -> String {
    let byte = bytes[offset]
    if byte > 0x20 && byte < 0x7F {
      return "'\(Character(Unicode.Scalar(byte)))'"
    }
    return "byte \(hexByte(byte))"
  }
}

extension JSONValue {
  /// Neither an object nor an array.
  var isScalar: Bool {
    switch self {
    case .object, .array: false
    default: true
    }
  }
}
