// String scanning: a fast path for strings without escapes that slices the
// input directly, and a slow path that decodes escapes into `scratch`.

extension JSONParser {
  /// Parses string contents; `index` is just past the opening quote.
  mutating func parseString() throws(JSONParseError) -> String {
    let start = index
    guard let end = try scanString() else { return String(decoding: scratch, as: UTF8.self) }
    return makeString(UnsafeBufferPointer(start: bytes + start, count: end - start))
  }

  /// Checks string contents as `parseString` does without building a `String`; `index` is just
  /// past the opening quote. Contents with escapes are decoded into `scratch`.
  mutating func skipString() throws(JSONParseError) {
    _ = try scanString()
  }

  /// Moves past string contents and the closing quote (`index` is just past the opening one):
  /// returns where the contents end when they have no escape, nil when they had one and were
  /// decoded into `scratch`.
  @inline(__always)
  private mutating func scanString() throws(JSONParseError) -> Int? {
    let start = index
    var cursor = index
    while cursor < count {
      let byte = bytes[cursor]
      if byte == .quote {
        index = cursor + 1
        return cursor
      }
      if byte == .backslash {
        try decodeEscapedString(start: start, firstEscape: cursor)
        return nil
      }
      if byte < 0x20 {
        throw controlCharacterError(at: cursor)
      }
      cursor = byte < 0x80 ? cursor + 1 : try validateUTF8(at: cursor)
    }
    throw JSONParseError(message: "unterminated string", offset: start - 1)
  }

  /// Decodes string contents with escapes into `scratch`, and moves past the closing quote.
  private mutating func decodeEscapedString(start: Int, firstEscape: Int) throws(JSONParseError) {
    scratch.removeAll(keepingCapacity: true)
    var runStart = start
    var cursor = firstEscape
    while cursor < count {
      let byte = bytes[cursor]
      if byte == .quote || byte == .backslash {
        scratch.append(
          contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: cursor - runStart))
        if byte == .quote {
          index = cursor + 1
          return
        }
        cursor = try decodeEscape(at: cursor)
        runStart = cursor
      } else if byte < 0x20 {
        throw controlCharacterError(at: cursor)
      } else {
        cursor = byte < 0x80 ? cursor + 1 : try validateUTF8(at: cursor)
      }
    }
    throw JSONParseError(message: "unterminated string", offset: start - 1)
  }

  /// Builds a `String` from already-validated UTF-8. This initializer takes
  /// the small-string path for short keys and is cheaper than
  /// `String(decoding:as:)`, which goes through generic repair logic.
  func makeString(_ utf8: UnsafeBufferPointer<UInt8>) -> String {
    String(unsafeUninitializedCapacity: utf8.count) { buffer in
      _ = buffer.initialize(fromContentsOf: utf8)
      return utf8.count
    }
  }

  /// Appends the escape at `offset` (a backslash) to `scratch` and returns
  /// the offset after it.
  private mutating func decodeEscape(at offset: Int) throws(JSONParseError) -> Int {
    guard offset + 1 < count else {
      throw JSONParseError(message: "unterminated string", offset: offset)
    }
    let decoded: UInt8
    switch bytes[offset + 1] {
    case .quote: decoded = .quote
    case .backslash: decoded = .backslash
    case .slash: decoded = .slash
    case UInt8(ascii: "b"): decoded = 0x08
    case UInt8(ascii: "f"): decoded = 0x0C
    case UInt8(ascii: "n"): decoded = .newline
    case UInt8(ascii: "r"): decoded = .carriageReturn
    case UInt8(ascii: "t"): decoded = .tab
    case UInt8(ascii: "u"): return try decodeUnicodeEscape(at: offset)
    default:
      throw invalidEscapeError(at: offset)
    }
    scratch.append(decoded)
    return offset + 2
  }

  /// Decodes `\uXXXX`, joining a UTF-16 surrogate pair into one scalar.
  private mutating func decodeUnicodeEscape(at offset: Int) throws(JSONParseError) -> Int {
    let unit = try hexQuad(at: offset + 2)
    var scalarValue = UInt32(unit)
    var next = offset + 6
    switch unit {
    case 0xD800...0xDBFF:
      guard next + 1 < count, bytes[next] == .backslash, bytes[next + 1] == UInt8(ascii: "u")
      else {
        throw loneSurrogateError(unit, at: offset)
      }
      let low = try hexQuad(at: next + 2)
      guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogateError(unit, at: offset) }
      scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
      next += 6
    case 0xDC00...0xDFFF:
      throw loneSurrogateError(unit, at: offset)
    default:
      break
    }
    appendUTF8(scalarValue)
    return next
  }

  /// Encodes a scalar value (never a surrogate here) as UTF-8 into `scratch`.
  private mutating func appendUTF8(_ value: UInt32) {
    switch value {
    case 0..<0x80:
      scratch.append(UInt8(value))
    case 0x80..<0x800:
      scratch.append(0xC0 | UInt8(value >> 6))
      scratch.append(0x80 | UInt8(value & 0x3F))
    case 0x800..<0x10000:
      scratch.append(0xE0 | UInt8(value >> 12))
      scratch.append(0x80 | UInt8((value >> 6) & 0x3F))
      scratch.append(0x80 | UInt8(value & 0x3F))
    default:
      scratch.append(0xF0 | UInt8(value >> 18))
      scratch.append(0x80 | UInt8((value >> 12) & 0x3F))
      scratch.append(0x80 | UInt8((value >> 6) & 0x3F))
      scratch.append(0x80 | UInt8(value & 0x3F))
    }
  }

  private func hexQuad(at offset: Int) throws(JSONParseError) -> UInt16 {
    var value: UInt16 = 0
    for position in offset..<(offset + 4) {
      guard position < count, let digit = hexDigitValue(bytes[position]) else {
        throw JSONParseError(
          message: "invalid \\u escape, expected 4 hex digits", offset: offset - 2)
      }
      value = value << 4 | UInt16(digit)
    }
    return value
  }

  private func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }

  private func loneSurrogateError(_ unit: UInt16, at offset: Int) -> JSONParseError {
    let hex = String(unit, radix: 16, uppercase: true)
    return JSONParseError(message: "lone UTF-16 surrogate \\u\(hex) in string", offset: offset)
  }

  private func invalidEscapeError(at offset: Int) -> JSONParseError {
    let byte = bytes[offset + 1]
    let shown =
      byte > 0x20 && byte < 0x7F
      ? "'\\\(Character(Unicode.Scalar(byte)))'" : "backslash followed by \(hexByte(byte))"
    return JSONParseError(message: "invalid escape \(shown) in string", offset: offset)
  }

  private func controlCharacterError(at offset: Int) -> JSONParseError {
    JSONParseError(
      message: "unescaped control character \(hexByte(bytes[offset])) in string", offset: offset)
  }

  /// Checks one multi-byte UTF-8 sequence starting at `offset` (RFC 3629:
  /// no overlongs, no surrogates, nothing above U+10FFFF) and returns the
  /// offset after it.
  private func validateUTF8(at offset: Int) throws(JSONParseError) -> Int {
    let lead = bytes[offset]
    let length: Int
    var secondRange: ClosedRange<UInt8> = 0x80...0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      secondRange = 0xA0...0xBF
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      secondRange = 0x80...0x9F
    case 0xF0:
      length = 4
      secondRange = 0x90...0xBF
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      secondRange = 0x80...0x8F
    default:
      throw invalidUTF8Error(at: offset)
    }
    for position in (offset + 1)..<(offset + length) {
      guard position < count else { throw invalidUTF8Error(at: offset) }
      let range = position == offset + 1 ? secondRange : 0x80...0xBF
      guard range.contains(bytes[position]) else { throw invalidUTF8Error(at: offset) }
    }
    return offset + length
  }

  private func invalidUTF8Error(at offset: Int) -> JSONParseError {
    JSONParseError(
      message: "invalid UTF-8 sequence starting with byte \(hexByte(bytes[offset])) in string",
      offset: offset)
  }
}
