/// A JSON number.
///
/// Integers are kept exact as `Int64` so identifiers and counters survive a
/// round trip without floating-point loss; everything else is a `Double`.
public enum JSONNumber: Sendable, Hashable {
  /// A number written without fraction or exponent that fits in `Int64`.
  case int(Int64)
  /// Any other number: with a fraction or exponent, or outside `Int64`.
  case double(Double)
}

extension JSONNumber {
  /// The value as `Int64`, also for a double with an integral value in range.
  public var int64Value: Int64? {
    switch self {
    case .int(let value): return value
    case .double(let value): return exactInteger(value)
    }
  }

  /// The value as `Double` (large integers may round).
  public var doubleValue: Double {
    switch self {
    case .int(let value): return Double(value)
    case .double(let value): return value
    }
  }
}
