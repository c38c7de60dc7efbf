/// A value written as a JSON object member by member, instead of through `Encodable`'s
/// containers: FeatureKit's build plugin generates it for a feature state of plain members
/// (`Int`, `Bool`, `String` and their optionals), in the order `JSONBytesEncoder` sorts keys, so
/// `JSONBytesEncoder` gives the same bytes either way, without the containers.
public protocol JSONObjectWritable: Encodable {
  func writeJSONObject(into writer: inout JSONObjectWriter)
}

/// Writes one JSON object, member by member, as `JSONBytesEncoder` writes the same members:
/// keys given in UTF-8 order, a nil optional left out (as synthesized `Encodable` does).
public struct JSONObjectWriter {
  private(set) var bytes: [UInt8] = []
  private var empty = true

  init(capacity: Int) {
    bytes.reserveCapacity(max(capacity, 2))
    bytes.append(.openBrace)
  }

  /// The object's bytes, closed.
  mutating func finish() -> [UInt8] {
    bytes.append(.closeBrace)
    return bytes
  }

  private mutating func key(_ key: StaticString) {
    if !empty { bytes.append(.comma) }
    empty = false
    bytes.append(.quote)
    bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    bytes.append(.quote)
    bytes.append(.colon)
  }

  public mutating func member(_ name: StaticString, _ value: Int) {
    key(name)
    JSONSerializer.writeNumber(.int(Int64(value)), into: &bytes)
  }

  public mutating func member(_ name: StaticString, _ value: Bool) {
    key(name)
    JSONSerializer.write(.bool(value), into: &bytes)
  }

  public mutating func member(_ name: StaticString, _ value: String) {
    key(name)
    JSONSerializer.writeString(value, into: &bytes)
  }

  public mutating func member(_ name: StaticString, _ value: Int?) { if let value { member(name, value) } }
  public mutating func member(_ name: StaticString, _ value: Bool?) { if let value { member(name, value) } }
  public mutating func member(_ name: StaticString, _ value: String?) { if let value { member(name, value) } }
}
