/// Writes `JSONValue` trees as UTF-8 bytes.
///
/// Object keys are ordered by their UTF-8 bytes so the same value always
/// produces the same bytes (snapshot -> restore -> snapshot is stable).
enum JSONSerializer {
  static func write(_ value: JSONValue, into out: inout [UInt8]) {
    write(value, indent: nil, into: &out)
  }

  /// Human-oriented layout: two-space indent, `"key": value`, sorted keys.
  static func writePretty(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
    write(value, indent: indent, into: &out)
  }

  /// Compact when `indent` is nil; otherwise each element on a line of its own, at `indent + 1`.
  private static func write(_ value: JSONValue, indent: Int?, into out: inout [UInt8]) {
    let inner = indent.map { $0 + 1 }
    switch value {
    case .null: appendLiteral("null", into: &out)
    case .bool(let flag): appendLiteral(flag ? "true" : "false", into: &out)
    case .number(let number): writeNumber(number, into: &out)
    case .string(let string): writeString(string, into: &out)
    case .array(let elements):
      out.append(.openBracket)
      var first = true
      for element in elements {
        if !first { out.append(.comma) }
        first = false
        newline(indent: inner, into: &out)
        write(element, indent: inner, into: &out)
      }
      if !elements.isEmpty { newline(indent: indent, into: &out) }
      out.append(.closeBracket)
    case .object(let members):
      out.append(.openBrace)
      var first = true
      forEachSorted(members) { key, member in
        if !first { out.append(.comma) }
        first = false
        newline(indent: inner, into: &out)
        writeString(key, into: &out)
        out.append(.colon)
        if indent != nil { out.append(.space) }
        write(member, indent: inner, into: &out)
      }
      if !members.isEmpty { newline(indent: indent, into: &out) }
      out.append(.closeBrace)
    }
  }

  /// Visits members in UTF-8 byte order of their keys. Swift's `String <`
  /// compares normalized scalars, not bytes, so it is not used here.
  /// Entries carry their key's first 8 bytes as an integer, so most
  /// comparisons never touch the strings.
  private static func forEachSorted(
    _ members: [String: JSONValue], _ body: (String, JSONValue) -> Void
  ) {
    if members.count <= 1 {
      for (key, value) in members {
        body(key, value)
      }
      return
    }
    var entries: [(prefix: UInt64, index: Dictionary<String, JSONValue>.Index)] = []
    entries.reserveCapacity(members.count)
    for index in members.indices {
      entries.append((utf8Prefix(members[index].key), index))
    }
    entries.sort { lhs, rhs in
      if lhs.prefix != rhs.prefix {
        return lhs.prefix < rhs.prefix
      }
      return utf8Precedes(members[lhs.index].key, members[rhs.index].key)
    }
    for entry in entries {
      let member = members[entry.index]
      body(member.key, member.value)
    }
  }

  /// The first 8 UTF-8 bytes, big-endian, zero-padded: ordering by it never
  /// contradicts byte order, and ties fall back to `utf8Precedes`.
  private static func utf8Prefix(_ key: String) -> UInt64 {
    var key = key
    return key.withUTF8 { bytes in
      var prefix: UInt64 = 0
      for position in 0..<8 {
        prefix = prefix << 8 | (position < bytes.count ? UInt64(bytes[position]) : 0)
      }
      return prefix
    }
  }

  /// Byte-wise comparison of the UTF-8 encodings of `lhs` and `rhs`.
  static func utf8Precedes(_ lhs: String, _ rhs: String) -> Bool {
    var lhs = lhs
    var rhs = rhs
    return lhs.withUTF8 { left in
      rhs.withUTF8 { right in
        let shared = min(left.count, right.count)
        var position = 0
        while position < shared {
          if left[position] != right[position] {
            return left[position] < right[position]
          }
          position += 1
        }
        return left.count < right.count
      }
    }
  }

  /// A line break and `indent` levels of two spaces; nothing when compact (`indent` nil).
  private static func newline(indent: Int?, into out: inout [UInt8]) {
    guard let indent else { return }
    out.append(.newline)
    out.append(contentsOf: repeatElement(.space, count: indent * 2))
  }

  private static func appendLiteral(_ literal: StaticString, into out: inout [UInt8]) {
    out.append(
      contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  static func writeNumber(_ number: JSONNumber, into out: inout [UInt8]) {
    switch number {
    case .int(let value):
      writeInteger(value, into: &out)
    case .double(let value):
      // Non-finite values have no JSON spelling; `null` keeps output valid.
      // `description` is the shortest text that round-trips exactly.
      if value.isFinite {
        out.append(contentsOf: value.description.utf8)
      } else {
        appendLiteral("null", into: &out)
      }
    }
  }

  private static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
    if value < 0 {
      out.append(.minus)
    }
    var magnitude = value.magnitude
    if magnitude < 10 {
      out.append(.asciiZero &+ UInt8(truncatingIfNeeded: magnitude))
      return
    }
    // Digits come out last-first; fill a stack buffer from the end.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = .asciiZero &+ UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  /// Escapes only what RFC 8259 requires; non-ASCII stays raw UTF-8.
  static func writeString(_ string: String, into out: inout [UInt8]) {
    out.append(.quote)
    let handled: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
      var runStart = 0
      for position in bytes.indices {
        let byte = bytes[position]
        guard byte < 0x20 || byte == .quote || byte == .backslash else { continue }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
        writeEscape(byte, into: &out)
        runStart = position + 1
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }
    if handled == nil {
      for byte in string.utf8 {
        if byte < 0x20 || byte == .quote || byte == .backslash {
          writeEscape(byte, into: &out)
        } else {
          out.append(byte)
        }
      }
    }
    out.append(.quote)
  }

  private static func writeEscape(_ byte: UInt8, into out: inout [UInt8]) {
    out.append(.backslash)
    switch byte {
    case .quote, .backslash: out.append(byte)
    case .newline: out.append(UInt8(ascii: "n"))
    case .carriageReturn: out.append(UInt8(ascii: "r"))
    case .tab: out.append(UInt8(ascii: "t"))
    case 0x08: out.append(UInt8(ascii: "b"))
    case 0x0C: out.append(UInt8(ascii: "f"))
    default:
      let hexDigits: StaticString = "0123456789abcdef"
      out.append(contentsOf: [UInt8(ascii: "u"), .asciiZero, .asciiZero])
      out.append(hexDigits.utf8Start[Int(byte >> 4)])
      out.append(hexDigits.utf8Start[Int(byte & 0x0F)])
    }
  }
}
