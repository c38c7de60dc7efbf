/// A size in bytes as people write it: `512M`, `1G`, `2GiB`, `1073741824`.
public enum MemorySize {
  /// The units, binary as memory is counted: `K`/`KiB`, `M`/`MiB`, `G`/`GiB`, `T`/`TiB` (and `KB`,
  /// `MB`, ... read the same).
  private static let units: [(suffixes: [String], shift: UInt64)] = [
    (["k", "kb", "kib"], 10), (["m", "mb", "mib"], 20), (["g", "gb", "gib"], 30), (["t", "tb", "tib"], 40),
  ]

  /// The bytes `text` names, or nil when it is not a size (a number, optionally with a unit, with
  /// at most three decimals, above zero).
  public static func parse(_ text: String) -> UInt64? {
    let lowered = text.lowercased().filter { $0 != " " }
    let digits = lowered.prefix { $0.isNumber || $0 == "." }
    let suffix = String(lowered.dropFirst(digits.count))
    var shift: UInt64 = 0
    if !suffix.isEmpty && suffix != "b" {
      guard let unit = units.first(where: { $0.suffixes.contains(suffix) }) else { return nil }
      shift = unit.shift
    }
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let whole = UInt64(parts[0]) else { return nil }
    let fraction = parts.count == 2 ? String(parts[1]) : ""
    guard fraction.count <= 3, fraction.allSatisfy(\.isNumber) else { return nil }
    let scale: UInt64 = 1 << shift
    let (wholeBytes, overflow) = whole.multipliedReportingOverflow(by: scale)
    guard !overflow else { return nil }
    let thousandths = UInt64(fraction + String(repeating: "0", count: 3 - fraction.count)) ?? 0
    let bytes = wholeBytes + thousandths * scale / 1000
    return bytes > 0 ? bytes : nil
  }

  /// `1 GiB`, `512 MiB`, `1.5 GiB`, or `N bytes` when no unit gives a short number.
  public static func text(_ bytes: UInt64) -> String {
    for (suffix, shift) in [("TiB", UInt64(40)), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
      let scale: UInt64 = 1 << shift
      guard bytes >= scale else { continue }
      if bytes % scale == 0 { return "\(bytes / scale) \(suffix)" }
      let tenths = bytes * 10 / scale
      if tenths * scale == bytes * 10 { return "\(tenths / 10).\(tenths % 10) \(suffix)" }
    }
    return "\(bytes) bytes"
  }
}
