import FeatureJSON
import HostKit

/// Compares JSON by value, and shows how two values differ.
enum JSONComparison {
  /// Equal as JSON: objects by members whatever their order, numbers by value (`1` == `1.0`).
  static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.number(let x), .number(let y)):
      if let left = x.int64Value, let right = y.int64Value { return left == right }
      return x.doubleValue == y.doubleValue
    case (.array(let x), .array(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
    case (.object(let x), .object(let y)):
      return x.count == y.count && x.allSatisfy { key, value in y[key].map { equal(value, $0) } ?? false }
    default: return false
    }
  }

  /// The two values pretty-printed (sorted keys, two-space indent) and diffed line by line:
  /// `-` lines only in `expected`, `+` lines only in `actual`, unchanged lines around them.
  static func diff(expected: JSONValue, actual: JSONValue) -> String {
    LineDiff.compact(old: lines(expected), new: lines(actual))
  }

  private static func lines(_ value: JSONValue) -> [String] {
    value.prettyPrinted().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }
}
