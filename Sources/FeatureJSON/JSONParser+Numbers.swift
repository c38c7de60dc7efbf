// Number scanning: validates the RFC 8259 grammar while accumulating an
// `Int64`, so the common integer case never goes through text conversion.

extension JSONParser {
  mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
    let start = index
    var cursor = index
    let negative = bytes[cursor] == .minus
    if negative {
      cursor += 1
    }
    guard cursor < count, isDigit(bytes[cursor]) else {
      if cursor < count, bytes[cursor] == UInt8(ascii: "I") {
        throw JSONParseError(message: "NaN and Infinity are not valid JSON", offset: start)
      }
      index = cursor
      throw failure("expected a digit after '-'")
    }
    // Accumulate as a negative value so Int64.min is representable.
    var accumulated: Int64 = 0
    var overflow = false
    if bytes[cursor] == .asciiZero {
      cursor += 1
      if cursor < count, isDigit(bytes[cursor]) {
        throw JSONParseError(message: "leading zeros are not allowed in numbers", offset: start)
      }
    } else {
      while cursor < count, isDigit(bytes[cursor]) {
        let digit = Int64(bytes[cursor] &- .asciiZero)
        if !overflow {
          let (scaled, scaleOverflow) = accumulated.multipliedReportingOverflow(by: 10)
          let (sum, sumOverflow) = scaled.subtractingReportingOverflow(digit)
          overflow = scaleOverflow || sumOverflow
          accumulated = sum
        }
        cursor += 1
      }
    }
    var isInteger = true
    if cursor < count, bytes[cursor] == .dot {
      isInteger = false
      cursor = try skipDigits(after: cursor + 1, expecting: "expected a digit after '.'")
    }
    if cursor < count, bytes[cursor] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      cursor += 1
      if cursor < count, bytes[cursor] == .plus || bytes[cursor] == .minus {
        cursor += 1
      }
      cursor = try skipDigits(after: cursor, expecting: "expected a digit in the exponent")
    }
    index = cursor
    if isInteger && !overflow {
      if negative {
        return .int(accumulated)
      }
      if accumulated != .min {
        return .int(-accumulated)
      }
    }
    let text = String(
      decoding: UnsafeBufferPointer(start: bytes + start, count: cursor - start), as: UTF8.self)
    guard let value = Double(text), value.isFinite else {
      throw JSONParseError(message: "number \(text) is out of range", offset: start)
    }
    return .double(value)
  }

  /// Requires at least one digit at `offset` and returns the offset after
  /// the run of digits.
  private mutating func skipDigits(
    after offset: Int, expecting message: String
  ) throws(JSONParseError) -> Int {
    var cursor = offset
    guard cursor < count, isDigit(bytes[cursor]) else {
      index = cursor
      throw failure(message)
    }
    while cursor < count, isDigit(bytes[cursor]) {
      cursor += 1
    }
    return cursor
  }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte &- .asciiZero < 10
  }
}
