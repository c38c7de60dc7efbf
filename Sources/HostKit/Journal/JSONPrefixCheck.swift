/// Checks, a chunk at a time, that bytes can still be the start of one JSON object: what lets a
/// reader refuse a huge line at its first wrong byte instead of holding all of it first.
///
/// The check is of the syntax only (structure, strings, escapes, numbers, literals), not of
/// UTF-8 or of what the object holds: the complete line is parsed in full anyway.
struct JSONPrefixCheck {
  private enum Mode: Equatable {
    /// Before the top-level object.
    case start
    /// A value must come (after `:` or `,` in an array).
    case value
    /// Just after `[`: a value or `]`.
    case valueOrClose
    /// Just after `{`: a key or `}`.
    case keyOrClose
    /// After `,` in an object: a key.
    case key
    /// After a key: `:`.
    case colon
    /// After a value: `,` or the container's close, or only whitespace after the top level.
    case afterValue
    /// In a string (a key when `isKey`); `escape` after `\`, `hexLeft` digits of `\u` to come.
    case string(isKey: Bool, escape: Bool, hexLeft: Int)
    case number(NumberPart)
    /// In `true`, `false` or `null`, at byte `next`.
    case literal(Literal, next: Int)
  }

  private enum Literal: Equatable {
    case `true`, `false`, null

    var bytes: StaticString {
      switch self {
      case .true: "true"
      case .false: "false"
      case .null: "null"
      }
    }
  }

  private enum NumberPart: Equatable {
    case minus, zero, integer, dot, fraction, exponentMark, exponentSign, exponent

    /// Whether a number may end here.
    var isComplete: Bool { self == .zero || self == .integer || self == .fraction || self == .exponent }
  }

  /// Open containers, innermost last: `true` for an object.
  private var containers: [Bool] = []
  private var mode = Mode.start
  /// Bytes checked so far.
  private(set) var count = 0

  /// The deepest nesting taken, as the JSON parser's.
  static let maxDepth = 512

  /// Checks `bytes`, which follow those checked before; returns the offset (from the first byte
  /// ever checked) of the first byte that cannot be there, or nil.
  mutating func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    for (index, byte) in bytes.enumerated() where !take(byte) {
      return count + index
    }
    count += bytes.count
    return nil
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  private static func isHex(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
  }

  private mutating func take(_ byte: UInt8) -> Bool {
    switch mode {
    case .start:
      if Self.isSpace(byte) { return true }
      guard byte == UInt8(ascii: "{") else { return false }
      return open(object: true)
    case .value, .valueOrClose:
      if Self.isSpace(byte) { return true }
      if mode == .valueOrClose && byte == UInt8(ascii: "]") { return close(object: false) }
      return startValue(byte)
    case .keyOrClose, .key:
      if Self.isSpace(byte) { return true }
      if mode == .keyOrClose && byte == UInt8(ascii: "}") { return close(object: true) }
      guard byte == JournalByte.quote else { return false }
      mode = .string(isKey: true, escape: false, hexLeft: 0)
      return true
    case .colon:
      if Self.isSpace(byte) { return true }
      guard byte == UInt8(ascii: ":") else { return false }
      mode = .value
      return true
    case .afterValue:
      if Self.isSpace(byte) { return true }
      guard let inObject = containers.last else { return false }
      switch byte {
      case UInt8(ascii: ","):
        mode = inObject ? .key : .value
        return true
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        return close(object: byte == UInt8(ascii: "}"))
      default:
        return false
      }
    case .string(let isKey, let escape, let hexLeft):
      if hexLeft > 0 {
        guard Self.isHex(byte) else { return false }
        mode = .string(isKey: isKey, escape: false, hexLeft: hexLeft - 1)
        return true
      }
      if escape {
        switch byte {
        case UInt8(ascii: "u"):
          mode = .string(isKey: isKey, escape: false, hexLeft: 4)
        case JournalByte.quote, UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
          UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          mode = .string(isKey: isKey, escape: false, hexLeft: 0)
        default:
          return false
        }
        return true
      }
      switch byte {
      case JournalByte.quote: mode = isKey ? .colon : .afterValue
      case UInt8(ascii: "\\"): mode = .string(isKey: isKey, escape: true, hexLeft: 0)
      case ..<0x20: return false
      default: break
      }
      return true
    case .number(let part):
      if let next = Self.nextNumberPart(part, byte) {
        mode = .number(next)
        return true
      }
      guard part.isComplete else { return false }
      mode = .afterValue
      return take(byte)
    case .literal(let word, let next):
      let bytes = word.bytes
      guard bytes.utf8Start[next] == byte else { return false }
      mode = next + 1 == bytes.utf8CodeUnitCount ? .afterValue : .literal(word, next: next + 1)
      return true
    }
  }

  private mutating func startValue(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "{"): return open(object: true)
    case UInt8(ascii: "["): return open(object: false)
    case JournalByte.quote: mode = .string(isKey: false, escape: false, hexLeft: 0)
    case UInt8(ascii: "-"): mode = .number(.minus)
    case UInt8(ascii: "0"): mode = .number(.zero)
    case UInt8(ascii: "1")...UInt8(ascii: "9"): mode = .number(.integer)
    case UInt8(ascii: "t"): mode = .literal(.true, next: 1)
    case UInt8(ascii: "f"): mode = .literal(.false, next: 1)
    case UInt8(ascii: "n"): mode = .literal(.null, next: 1)
    default: return false
    }
    return true
  }

  private mutating func open(object: Bool) -> Bool {
    guard containers.count < Self.maxDepth else { return false }
    containers.append(object)
    mode = object ? .keyOrClose : .valueOrClose
    return true
  }

  private mutating func close(object: Bool) -> Bool {
    guard containers.last == object else { return false }
    containers.removeLast()
    mode = .afterValue
    return true
  }

  private static func nextNumberPart(_ part: NumberPart, _ byte: UInt8) -> NumberPart? {
    let digit = isDigit(byte)
    switch part {
    case .minus: return byte == UInt8(ascii: "0") ? .zero : digit ? .integer : nil
    case .zero, .integer:
      if digit { return part == .integer ? .integer : nil }
      if byte == UInt8(ascii: ".") { return .dot }
      return byte | 0x20 == UInt8(ascii: "e") ? .exponentMark : nil
    case .dot: return digit ? .fraction : nil
    case .fraction:
      if digit { return .fraction }
      return byte | 0x20 == UInt8(ascii: "e") ? .exponentMark : nil
    case .exponentMark:
      if digit { return .exponent }
      return byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") ? .exponentSign : nil
    case .exponentSign, .exponent: return digit ? .exponent : nil
    }
  }
}
