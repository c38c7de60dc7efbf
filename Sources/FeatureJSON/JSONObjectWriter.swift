/// A value written as a JSON object member by member, instead of through `Encodable`'s
/// containers: FeatureKit's build plugin generates it for a feature state of plain members
/// (`Int`, `Bool`, `String` and their optionals), in the order `JSONBytesEncoder` sorts keys, so
/// `JSONBytesEncoder` gives the same bytes either way, without the containers.
public protocol JSONObjectWritable: Encodable {
  func writeJSONObject(into writer: inout JSONObjectWriter)
}

/// Writes one JSON object, member by member, as `JSONBytesEncoder` writes the same members:
/// keys given in UTF-8 order, a nil optional left out (as synthesized `Encodable` does).
///
/// Inlinable, so the writer a feature's module generates is compiled with it: a member of a
/// number or a flag is put together on the stack and appended at once (each `append` across a
/// module costs a call and the array's checks: most of a small state's snapshot).
public struct JSONObjectWriter {
  @usableFromInline var bytes: [UInt8] = []
  @usableFromInline var empty = true

  init(capacity: Int) {
    bytes.reserveCapacity(max(capacity, 2))
    bytes.append(.openBrace)
  }

  /// A writer that takes `storage`'s array (leaving it empty), emptied but with its storage kept
  /// where no one else holds it.
  init(reusing storage: inout [UInt8], capacity: Int) {
    swap(&bytes, &storage)
    bytes.removeAll(keepingCapacity: true)
    bytes.reserveCapacity(max(capacity, 2))
    bytes.append(.openBrace)
  }

  /// The object's bytes, closed.
  mutating func finish() -> [UInt8] {
    bytes.append(.closeBrace)
    return bytes
  }

  /// The longest key written with its value in one go; a longer one goes piece by piece.
  @usableFromInline static var shortKey: Int { 40 }

  /// Appends `,"name":` (no comma first) then what `value` writes after it, in one append: at
  /// most `valueBytes` bytes, `value` answering how many it wrote.
  @inlinable
  mutating func member(
    _ name: StaticString, valueBytes: Int, _ value: (UnsafeMutablePointer<UInt8>) -> Int
  ) {
    let keyCount = name.utf8CodeUnitCount
    guard keyCount <= Self.shortKey else {
      key(name)
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: valueBytes) { buffer in
        bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress!, count: value(buffer.baseAddress!)))
      }
      return
    }
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.shortKey + 4 + valueBytes) { buffer in
      let base = buffer.baseAddress!
      var count = 0
      if !empty {
        base[count] = UInt8(ascii: ",")
        count += 1
      }
      base[count] = UInt8(ascii: "\"")
      (base + count + 1).update(from: name.utf8Start, count: keyCount)
      count += keyCount + 1
      base[count] = UInt8(ascii: "\"")
      base[count + 1] = UInt8(ascii: ":")
      count += 2
      count += value(base + count)
      bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }
    empty = false
  }

  /// `,"name":` piece by piece.
  @usableFromInline
  mutating func key(_ key: StaticString) {
    if !empty { bytes.append(.comma) }
    empty = false
    bytes.append(.quote)
    bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    bytes.append(.quote)
    bytes.append(.colon)
  }

  /// Writes `value` in decimal at `out` (at most 20 bytes); how many bytes it wrote.
  @inlinable
  static func writeDecimal(_ value: Int, at out: UnsafeMutablePointer<UInt8>) -> Int {
    var count = 0
    if value < 0 {
      out[0] = UInt8(ascii: "-")
      count = 1
    }
    var magnitude = value.magnitude
    // Digits come out last-first: counted first, then written from the end.
    var digits = 1
    var rest = magnitude / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    var position = count + digits
    repeat {
      position -= 1
      out[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
      magnitude /= 10
    } while magnitude > 0
    return count + digits
  }

  @inlinable
  public mutating func member(_ name: StaticString, _ value: Int) {
    member(name, valueBytes: 20) { Self.writeDecimal(value, at: $0) }
  }

  @inlinable
  public mutating func member(_ name: StaticString, _ value: Bool) {
    member(name, valueBytes: 5) { out in
      let word: StaticString = value ? "true" : "false"
      out.update(from: word.utf8Start, count: word.utf8CodeUnitCount)
      return word.utf8CodeUnitCount
    }
  }

  public mutating func member(_ name: StaticString, _ value: String) {
    key(name)
    JSONSerializer.writeString(value, into: &bytes)
  }

  @inlinable
  public mutating func member(_ name: StaticString, _ value: Int?) { if let value { member(name, value) } }
  @inlinable
  public mutating func member(_ name: StaticString, _ value: Bool?) { if let value { member(name, value) } }
  public mutating func member(_ name: StaticString, _ value: String?) { if let value { member(name, value) } }
}
