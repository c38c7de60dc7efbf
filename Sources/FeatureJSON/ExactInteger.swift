// `Int64(exactly: Double)` and friends call libm's rounding functions,
// which a Foundation-free plugin does not link. These helpers use only
// truncating conversions and a round-trip comparison instead.

/// The integer equal to `value`, or `nil` when it has a fraction, is not
/// finite, or does not fit in `T`.
func exactInteger<T: FixedWidthInteger>(_ value: Double, as type: T.Type = T.self) -> T? {
  if value >= -0x1p63 && value < 0x1p63 {
    let truncated = Int64(value)
    return Double(truncated) == value ? T(exactly: truncated) : nil
  }
  if value >= 0x1p63 && value < 0x1p64 {
    let truncated = UInt64(value)
    return Double(truncated) == value ? T(exactly: truncated) : nil
  }
  return nil
}

/// Whether `value` is finite and has no fractional part, at any magnitude.
func isIntegral(_ value: Double) -> Bool {
  guard value.isFinite else { return false }
  // Doubles of magnitude 2^52 and above have no fraction bits left.
  if value.magnitude >= 0x1p52 {
    return true
  }
  return Double(Int64(value)) == value
}
