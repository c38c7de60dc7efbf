/// The `Encoder` of `JSONBytesEncoder` for one value slot (frame); also its single value container.
struct ByteEncoder: Encoder, SingleValueEncodingContainer, IntegerValueEncodingContainer {
  let writer: ByteWriter
  let frame: Int
  let codingPath: [any CodingKey]

  var userInfo: [CodingUserInfoKey: Any] { writer.userInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    beginContainer(.object, opening: .openBrace)
    return KeyedEncodingContainer(ByteKeyedContainer<Key>(writer: writer, frame: frame, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    beginContainer(.array, opening: .openBracket)
    return ByteUnkeyedContainer(writer: writer, frame: frame, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  /// Makes this value a container of `kind` (writing `opening`) unless it is one already (a
  /// second `container(keyedBy:)` call); anything else written here already is a failure.
  @inline(__always)
  private func beginContainer(_ kind: ByteWriter.Frame.Kind, opening: UInt8) {
    guard writer.activate(frame) else { return }
    if writer.kind == .pending {
      writer.out.append(opening)
      writer.kind = kind
    } else if writer.kind != kind {
      writer.fail()
    }
  }

  /// Whether a single value may be written here now: nothing is yet.
  private func beginSingle() -> Bool {
    guard writer.activate(frame) else { return false }
    guard writer.kind == .pending else {
      writer.fail()
      return false
    }
    writer.kind = .scalar
    return true
  }

  func encodeInteger<T: BinaryInteger>(_ value: T) throws {
    try single { try PrimitiveBox.integer(value, at: codingPath) }
  }

  /// Writes `value`, computed first so that an error leaves nothing half written.
  private func single(_ value: () throws -> JSONValue) throws {
    let json: JSONValue
    do {
      json = try value()
    } catch {
      writer.fail()
      throw error
    }
    guard beginSingle() else { return }
    writer.writeScalar(json)
  }

  func encodeNil() throws { try single { .null } }
  func encode(_ value: Bool) throws { try single { .bool(value) } }
  func encode(_ value: String) throws {
    guard beginSingle() else { return }
    writer.writeString(value)
  }
  func encode(_ value: Double) throws { try single { try PrimitiveBox.double(value, at: codingPath) } }
  func encode(_ value: Float) throws { try single { try PrimitiveBox.float(value, at: codingPath) } }

  func encode<T: Encodable>(_ value: T) throws {
    guard writer.activate(frame) else { return }
    guard writer.kind == .pending else {
      writer.fail()
      return
    }
    // In place, as the tree does: the value's own containers land on this slot.
    try value.encode(to: self)
  }

  /// A `JSONValue` is written as it is (the tree keeps it as it is too).
  func write(_ value: JSONValue) {
    guard beginSingle() else { return }
    writer.writeValue(value)
  }
}

/// Writes `value` as the next member or element (the innermost frame's): the common leaves
/// directly, anything else through a nested `ByteEncoder` on a frame of its own.
private func writeNested<T: Encodable>(
  _ value: T, writer: ByteWriter, codingPath: @autoclosure () -> [any CodingKey]
) throws {
  if T.self == String.self {
    let string = withUnsafePointer(to: value) { $0.withMemoryRebound(to: String.self, capacity: 1) { $0.pointee } }
    writer.writeString(string)
    writer.out.append(.comma)
    return
  }
  let child = writer.push(.pending, isMember: true)
  do {
    try value.encode(to: ByteEncoder(writer: writer, frame: child, codingPath: codingPath()))
  } catch {
    writer.fail()
    throw error
  }
  writer.finish(child)
}

/// Writes a leaf computed by `value` as the next member or element, with its comma.
private func writeLeaf(_ writer: ByteWriter, _ value: () throws -> JSONValue) throws -> JSONValue? {
  do {
    return try value()
  } catch {
    writer.fail()
    throw error
  }
}

struct ByteKeyedContainer<Key: CodingKey>: IntegerKeyedEncodingContainer {
  let writer: ByteWriter
  let frame: Int
  let codingPath: [any CodingKey]

  /// Starts member `key` when this container is still open (and the writer has not failed).
  private func begin(_ key: Key) -> Bool {
    guard writer.activate(frame) else { return false }
    writer.beginMember(key.stringValue)
    return true
  }

  private func leaf(_ key: Key, _ value: () throws -> JSONValue) throws {
    guard let json = try writeLeaf(writer, value), begin(key) else { return }
    writer.writeScalar(json)
    writer.out.append(.comma)
  }

  mutating func encodeNil(forKey key: Key) throws { try leaf(key) { .null } }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try leaf(key) { .bool(value) } }
  mutating func encode(_ value: String, forKey key: Key) throws {
    guard begin(key) else { return }
    writer.writeString(value)
    writer.out.append(.comma)
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    try leaf(key) { try PrimitiveBox.double(value, at: codingPath + [key]) }
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    try leaf(key) { try PrimitiveBox.float(value, at: codingPath + [key]) }
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    guard begin(key) else { return }
    try writeNested(value, writer: writer, codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let path = codingPath + [key]
    guard begin(key) else {
      return KeyedEncodingContainer(ByteKeyedContainer<NestedKey>(writer: writer, frame: -1, codingPath: path))
    }
    writer.out.append(.openBrace)
    let nested = writer.push(.object, isMember: true)
    return KeyedEncodingContainer(ByteKeyedContainer<NestedKey>(writer: writer, frame: nested, codingPath: path))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let path = codingPath + [key]
    guard begin(key) else { return ByteUnkeyedContainer(writer: writer, frame: -1, codingPath: path) }
    writer.out.append(.openBracket)
    return ByteUnkeyedContainer(writer: writer, frame: writer.push(.array, isMember: true), codingPath: path)
  }

  mutating func superEncoder() -> any Encoder { superEncoder(named: JSONCodingKey.superKey) }

  mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

  private func superEncoder(named key: any CodingKey) -> any Encoder {
    let path = codingPath + [key]
    guard writer.activate(frame) else { return ByteEncoder(writer: writer, frame: -1, codingPath: path) }
    writer.beginMember(key.stringValue)
    return ByteEncoder(writer: writer, frame: writer.push(.pending, isMember: true), codingPath: path)
  }

  func encodeInteger<T: BinaryInteger>(_ value: T, forKey key: Key) throws {
    try leaf(key) { try PrimitiveBox.integer(value, at: codingPath + [key]) }
  }
}

struct ByteUnkeyedContainer: UnkeyedEncodingContainer, IntegerValueEncodingContainer {
  let writer: ByteWriter
  let frame: Int
  let codingPath: [any CodingKey]

  var count: Int {
    writer.frames.last(where: { $0.id == frame })?.count ?? 0
  }

  /// Starts the next element when this container is still open; returns its index.
  private func begin() -> Int? {
    guard writer.activate(frame) else { return nil }
    return writer.beginElement()
  }

  private func leaf(_ value: (_ path: () -> [any CodingKey]) throws -> JSONValue) throws {
    let index = count
    guard let json = try writeLeaf(writer, { try value { codingPath + [JSONCodingKey(index: index)] } }),
      begin() != nil
    else { return }
    writer.writeScalar(json)
    writer.out.append(.comma)
  }

  mutating func encodeNil() throws { try leaf { _ in .null } }
  mutating func encode(_ value: Bool) throws { try leaf { _ in .bool(value) } }
  mutating func encode(_ value: String) throws {
    guard begin() != nil else { return }
    writer.writeString(value)
    writer.out.append(.comma)
  }
  mutating func encode(_ value: Double) throws { try leaf { try PrimitiveBox.double(value, at: $0()) } }
  mutating func encode(_ value: Float) throws { try leaf { try PrimitiveBox.float(value, at: $0()) } }
  mutating func encodeInteger<T: BinaryInteger>(_ value: T) throws {
    try leaf { try PrimitiveBox.integer(value, at: $0()) }
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    guard let index = begin() else { return }
    try writeNested(value, writer: writer, codingPath: codingPath + [JSONCodingKey(index: index)])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    guard let index = begin() else {
      return KeyedEncodingContainer(ByteKeyedContainer<NestedKey>(writer: writer, frame: -1, codingPath: codingPath))
    }
    writer.out.append(.openBrace)
    return KeyedEncodingContainer(
      ByteKeyedContainer<NestedKey>(
        writer: writer, frame: writer.push(.object, isMember: true),
        codingPath: codingPath + [JSONCodingKey(index: index)]))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    guard let index = begin() else { return ByteUnkeyedContainer(writer: writer, frame: -1, codingPath: codingPath) }
    writer.out.append(.openBracket)
    return ByteUnkeyedContainer(
      writer: writer, frame: writer.push(.array, isMember: true), codingPath: codingPath + [JSONCodingKey(index: index)]
    )
  }

  mutating func superEncoder() -> any Encoder {
    guard let index = begin() else { return ByteEncoder(writer: writer, frame: -1, codingPath: codingPath) }
    return ByteEncoder(
      writer: writer, frame: writer.push(.pending, isMember: true),
      codingPath: codingPath + [JSONCodingKey(index: index)])
  }
}
