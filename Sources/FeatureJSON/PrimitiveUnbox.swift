/// Conversions from `JSONValue` to primitives with the error wording shared
/// by all decoding containers. Paths are built only when an error is thrown.
enum PrimitiveUnbox {
  static func bool(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
    guard case .bool(let flag) = value else {
      throw mismatch(Bool.self, expected: "a boolean", found: value, at: path())
    }
    return flag
  }

  static func string(
    _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]
  ) throws -> String {
    guard case .string(let string) = value else {
      throw mismatch(String.self, expected: "a string", found: value, at: path())
    }
    return string
  }

  /// Accepts integral doubles (`3.0`), rejects fractions and out-of-range
  /// values with distinct messages.
  static func integer<T: FixedWidthInteger>(
    _ value: JSONValue, as type: T.Type, at path: @autoclosure () -> [any CodingKey]
  ) throws -> T {
    switch value {
    case .number(.int(let number)):
      if let result = T(exactly: number) {
        return result
      }
    case .number(.double(let number)):
      if let result = exactInteger(number, as: T.self) {
        return result
      }
      if !isIntegral(number) {
        throw mismatch(T.self, expected: "an integer", found: value, at: path())
      }
    default:
      throw mismatch(T.self, expected: "an integer", found: value, at: path())
    }
    throw doesNotFit(value, in: T.self, at: path())
  }

  /// `value` is a number of the right kind but out of `type`'s range.
  private static func doesNotFit<T>(_ value: JSONValue, in type: T.Type, at codingPath: [any CodingKey])
    -> DecodingError
  {
    DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: codingPath,
        debugDescription: "\(describeFound(value))\(locationPhrase(codingPath)) does not fit in \(type)"))
  }

  static func double(
    _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]
  ) throws -> Double {
    guard case .number(let number) = value else {
      throw mismatch(Double.self, expected: "a number", found: value, at: path())
    }
    return number.doubleValue
  }

  static func float(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Float {
    guard case .number(let number) = value else {
      throw mismatch(Float.self, expected: "a number", found: value, at: path())
    }
    let wide = number.doubleValue
    let narrow = Float(wide)
    // Rounding decides: `Float.greatestFiniteMagnitude` written as its
    // shortest text is slightly above it as a Double yet still fits.
    guard narrow.isFinite || !wide.isFinite else { throw doesNotFit(value, in: Float.self, at: path()) }
    return narrow
  }

  /// `valueNotFound` for `null` (as Foundation does), `typeMismatch` otherwise.
  static func mismatch(
    _ type: Any.Type, expected: String, found: JSONValue, at codingPath: [any CodingKey]
  ) -> DecodingError {
    let context = DecodingError.Context(
      codingPath: codingPath,
      debugDescription:
        "expected \(expected)\(locationPhrase(codingPath)), found \(describeFound(found))")
    if case .null = found {
      return .valueNotFound(type, context)
    }
    return .typeMismatch(type, context)
  }
}
