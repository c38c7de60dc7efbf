/// A flat action object read in place: where each member's key and value lie in the document,
/// with no `String`, no `JSONValue` and no heap allocation. A flat state object too
/// (`init(objectAt:)`: no `type` member required). Only the plain, common shape is
/// accepted (see `init`); for anything else `init` answers nil and the caller parses the document
/// in full (`FlatObject`, `JSONValue`), which also reports every error. Whatever it accepts is
/// valid JSON that those parsers read to the same values.
public struct FlatActionScan {
  /// The most members scanned; a longer object goes the general way.
  public static let maximumMembers = 8
  /// The longest document scanned, so that every offset fits in a byte.
  public static let maximumLength = 255

  private enum Kind: UInt64 {
    case string = 1
    case integer, boolTrue, boolFalse, null
  }

  private let bytes: UnsafePointer<UInt8>
  /// One member a lane: key start, key length, value start, value length, kind (a byte each).
  private var members = SIMD8<UInt64>()
  /// Members, `type` included.
  public private(set) var count = 0
  /// The value of `type`.
  public private(set) var tag = ""

  /// Scans a NUL-terminated document. Nil unless it is at most 255 bytes of one object of at
  /// most 8 members with a string `type`, every key and string plain printable ASCII without
  /// escapes, every number an integer of at most 18 digits, no nested object or array, no key
  /// twice.
  public init?(utf8CString cString: UnsafePointer<CChar>) {
    self.init(cString, requiringType: true)
  }

  /// Scans a NUL-terminated object as `init(utf8CString:)` does, with no member singled out: a
  /// `type` member is optional and may hold any plain value. `tag` stays empty.
  public init?(objectAt cString: UnsafePointer<CChar>) {
    self.init(cString, requiringType: false)
  }

  private init?(_ cString: UnsafePointer<CChar>, requiringType: Bool) {
    bytes = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
    var index = 0
    guard skipSpace(&index), bytes[index] == UInt8(ascii: "{") else { return nil }
    index += 1
    guard skipSpace(&index) else { return nil }
    var typeLane = -1
    if bytes[index] == UInt8(ascii: "}") {
      index += 1
    } else {
      while true {
        guard count < Self.maximumMembers, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let keyStart = index + 1
        guard let keyEnd = plainString(from: keyStart) else { return nil }
        index = keyEnd + 1
        guard skipSpace(&index), bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        guard skipSpace(&index) else { return nil }
        var valueStart = index
        guard let kind = scanValue(&index, start: &valueStart), index <= Self.maximumLength else { return nil }
        let keyLength = keyEnd - keyStart
        for lane in 0..<count where keyLength == length(of: lane) && same(keyStart, start(of: lane), keyLength) {
          return nil
        }
        if requiringType && keyLength == 4 && same(keyStart, "type") {
          guard kind == .string else { return nil }
          typeLane = count
        }
        members[count] =
          UInt64(keyStart) | UInt64(keyLength) << 8 | UInt64(valueStart) << 16
          | UInt64(index - valueStart - (kind == .string ? 1 : 0)) << 24 | kind.rawValue << 32
        count += 1
        guard skipSpace(&index) else { return nil }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
          guard skipSpace(&index) else { return nil }
          continue
        }
        guard bytes[index] == UInt8(ascii: "}") else { return nil }
        index += 1
        break
      }
    }
    // Only whitespace may follow.
    while bytes[index] != 0 {
      guard isSpace(bytes[index]), index < Self.maximumLength else { return nil }
      index += 1
    }
    guard requiringType else { return }
    guard typeLane >= 0 else { return nil }
    tag = text(ofValue: typeLane)
  }

  private func start(of lane: Int) -> Int { Int(members[lane] & 0xFF) }
  private func length(of lane: Int) -> Int { Int(members[lane] >> 8 & 0xFF) }
  private func valueStart(of lane: Int) -> Int { Int(members[lane] >> 16 & 0xFF) }
  private func valueLength(of lane: Int) -> Int { Int(members[lane] >> 24 & 0xFF) }
  private func kind(of lane: Int) -> Kind? { Kind(rawValue: members[lane] >> 32 & 0xFF) }

  /// Skips whitespace; false at the end of the document.
  private func skipSpace(_ index: inout Int) -> Bool {
    while isSpace(bytes[index]) { index += 1 }
    return bytes[index] != 0
  }

  private func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  /// The index of the closing quote of a string starting at `start`, if it is plain ASCII.
  private func plainString(from start: Int) -> Int? {
    var index = start
    while true {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") { return index }
      guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\"), index < Self.maximumLength else { return nil }
      index += 1
    }
  }

  /// Scans the value at `index`, leaving `index` after it and `start` at its first byte (inside
  /// the quotes of a string).
  private func scanValue(_ index: inout Int, start: inout Int) -> Kind? {
    let byte = bytes[index]
    switch byte {
    case UInt8(ascii: "\""):
      guard let end = plainString(from: index + 1) else { return nil }
      start = index + 1
      index = end + 1
      return .string
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      var cursor = byte == UInt8(ascii: "-") ? index + 1 : index
      let digitsStart = cursor
      while bytes[cursor] >= UInt8(ascii: "0") && bytes[cursor] <= UInt8(ascii: "9") { cursor += 1 }
      let digits = cursor - digitsStart
      guard digits > 0, digits <= 18, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")) else { return nil }
      // A fraction or an exponent: the full parser's.
      let next = bytes[cursor]
      guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") else { return nil }
      index = cursor
      return .integer
    case UInt8(ascii: "t"):
      return literal(&index, "true") ? .boolTrue : nil
    case UInt8(ascii: "f"):
      return literal(&index, "false") ? .boolFalse : nil
    case UInt8(ascii: "n"):
      return literal(&index, "null") ? .null : nil
    default:
      return nil
    }
  }

  private func literal(_ index: inout Int, _ word: StaticString) -> Bool {
    let length = word.utf8CodeUnitCount
    for offset in 0..<length where bytes[index + offset] != word.utf8Start[offset] { return false }
    index += length
    return true
  }

  private func same(_ first: Int, _ second: Int, _ length: Int) -> Bool {
    for offset in 0..<length where bytes[first + offset] != bytes[second + offset] { return false }
    return true
  }

  private func same(_ start: Int, _ key: StaticString) -> Bool {
    let pointer = key.utf8Start
    for offset in 0..<key.utf8CodeUnitCount where bytes[start + offset] != pointer[offset] { return false }
    return true
  }

  private func text(ofValue lane: Int) -> String {
    String(
      decoding: UnsafeBufferPointer(start: bytes + valueStart(of: lane), count: valueLength(of: lane)), as: UTF8.self)
  }

  /// The lane of the member named `key`.
  private func lane(_ key: StaticString) -> Int? {
    let keyLength = key.utf8CodeUnitCount
    for lane in 0..<count where length(of: lane) == keyLength && same(start(of: lane), key) { return lane }
    return nil
  }

  /// Whether a member named `key` is present.
  public func contains(_ key: StaticString) -> Bool { lane(key) != nil }

  /// Whether the value of `type` is `name`.
  public func tagIs(_ name: StaticString) -> Bool {
    tag.utf8.count == name.utf8CodeUnitCount && name.withUTF8Buffer { tag.utf8.elementsEqual($0) }
  }

  /// The member `key` as `JSONValue`: what the full parser would have read.
  public func value(_ key: StaticString) -> JSONValue? {
    guard let lane = lane(key) else { return nil }
    switch kind(of: lane) {
    case .string: return .string(text(ofValue: lane))
    case .integer: return integer(lane).map { .number(.int($0)) }
    case .boolTrue: return .bool(true)
    case .boolFalse: return .bool(false)
    case .null, nil: return .null
    }
  }

  private func integer(_ lane: Int) -> Int64? {
    guard kind(of: lane) == .integer else { return nil }
    var cursor = valueStart(of: lane)
    let end = cursor + valueLength(of: lane)
    let negative = bytes[cursor] == UInt8(ascii: "-")
    if negative { cursor += 1 }
    var value: Int64 = 0
    while cursor < end {
      value = value &* 10 &+ Int64(bytes[cursor] &- UInt8(ascii: "0"))
      cursor += 1
    }
    return negative ? -value : value
  }

  /// The member `key` when it is an integer.
  public func integer(_ key: StaticString) -> Int64? { lane(key).flatMap(integer) }

  /// The member `key` when it is a string.
  public func string(_ key: StaticString) -> String? {
    guard let lane = lane(key), kind(of: lane) == .string else { return nil }
    return text(ofValue: lane)
  }

  /// The member `key` when it is `true` or `false`.
  public func bool(_ key: StaticString) -> Bool? {
    guard let lane = lane(key) else { return nil }
    switch kind(of: lane) {
    case .boolTrue: return true
    case .boolFalse: return false
    default: return nil
    }
  }
}
