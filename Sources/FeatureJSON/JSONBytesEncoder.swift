#if canImport(Glibc)
  import Glibc
#endif

/// Encodes any `Encodable` straight to compact JSON bytes, without building a `JSONValue` tree.
///
/// The bytes are exactly those of `JSONValueEncoder().encode(value).serialized()` (keys in UTF-8
/// byte order, the same numbers and escapes), so a snapshot is the same whichever way it was made.
/// Values are written as their containers are used; a container used after one opened later
/// (allowed by `Encoder`, never done by synthesized `Codable`), a key written twice, or any error
/// makes the whole value go through the tree instead, which gives its exact result or error.
public struct JSONBytesEncoder: Sendable {
  /// Handed to `Encodable` implementations as `Encoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

  public init() {}

  /// Encodes `value`. `capacity` is a guess at the size, to reserve once instead of growing.
  /// Throws what `JSONValueEncoder.encode` throws.
  public func encode<T: Encodable>(_ value: T, capacity: Int = 0) throws -> [UInt8] {
    if let writable = value as? any JSONObjectWritable {
      var writer = JSONObjectWriter(capacity: capacity)
      writable.writeJSONObject(into: &writer)
      return writer.finish()
    }
    let writer = ByteWriter(userInfo: userInfo, capacity: capacity, scalarsAsZero: false)
    if let bytes = writer.write(value) { return bytes }
    return try treeBytes(value, capacity: capacity)
  }

  /// For a type that writes itself (`JSONObjectWritable`), its encoding as `encode` makes it,
  /// worked out once: no cast and no encoder for each value (a snapshot after every action). The
  /// function writes into the array it is given, in place of what it held, reusing its storage
  /// when no one else holds it (reserving `capacity`): a snapshot after every action then
  /// allocates nothing. Nil for any other type.
  public static func objectWriter<T: Encodable>(
    for type: T.Type
  ) -> ((T, _ capacity: Int, _ bytes: inout [UInt8]) -> Void)? {
    guard let writable = type as? any JSONObjectWritable.Type else { return nil }
    func make<W: JSONObjectWritable>(_: W.Type) -> (T, Int, inout [UInt8]) -> Void {
      precondition(W.self == T.self, "the conformance found is T's own")
      return { value, capacity, bytes in
        var writer = JSONObjectWriter(reusing: &bytes, capacity: capacity)
        // The same type, so the same layout.
        unsafeBitCast(value, to: W.self).writeJSONObject(into: &writer)
        bytes = writer.finish()
      }
    }
    return make(writable)
  }

  /// The structure of `value` as JSON: its objects with their keys, its arrays with their
  /// lengths, every other value written as `0`. For finding which members a value has without
  /// paying for its contents (a list of 100,000 URLs is 200 KB here). A value whose encoding only
  /// the tree can follow is written in full instead (the same structure, with its values).
  /// Throws what `encode` throws.
  public func encodeStructure<T: Encodable>(_ value: T) throws -> [UInt8] {
    let writer = ByteWriter(userInfo: userInfo, capacity: 0, scalarsAsZero: true)
    if let bytes = writer.write(value) { return bytes }
    return try treeBytes(value, capacity: 0)
  }

  private func treeBytes<T: Encodable>(_ value: T, capacity: Int) throws -> [UInt8] {
    var encoder = JSONValueEncoder()
    encoder.userInfo = userInfo
    var out: [UInt8] = []
    out.reserveCapacity(capacity)
    JSONSerializer.write(try encoder.encode(value), into: &out)
    return out
  }
}

/// The output and the open containers of one `JSONBytesEncoder.encode` call.
///
/// Every container is a frame on a stack, innermost last. Using a container closes the frames
/// opened after it; using a closed one, or any misuse, sets `failed`, after which nothing is
/// written and the caller encodes through the tree.
final class ByteWriter {
  struct Frame {
    enum Kind { case pending, object, array, scalar }
    let id: Int
    var kind: Kind
    /// Whether a comma follows the value when it closes: it is a member or an element.
    let isMember: Bool
    /// Elements written so far (an array's), for coding paths.
    var count = 0
    /// An object's members: each key and where its `"key":` starts. Each member ends in a comma.
    var members: [(key: String, start: Int)] = []
  }

  let userInfo: [CodingUserInfoKey: Any]
  // Not checked for exclusivity at run time (each access would cost a lookup in the thread's
  // access set, a fifth of a small state's encoding): one `encode` call owns the writer, on one
  // thread, and no access to these overlaps another.
  @exclusivity(unchecked) var out: [UInt8] = []
  @exclusivity(unchecked) private(set) var frames: [Frame] = []
  @exclusivity(unchecked) private var nextID = 0
  @exclusivity(unchecked) private(set) var failed = false

  /// Whether scalars are written as `0` (`encodeStructure`).
  let scalarsAsZero: Bool

  init(userInfo: [CodingUserInfoKey: any Sendable], capacity: Int, scalarsAsZero: Bool) {
    // An empty one is not converted (a dictionary's upcast allocates).
    if userInfo.isEmpty { self.userInfo = [:] } else { self.userInfo = userInfo }
    self.scalarsAsZero = scalarsAsZero
    out.reserveCapacity(capacity)
  }

  /// Writes a scalar value (not a key).
  func writeScalar(_ value: JSONValue) {
    if scalarsAsZero { out.append(.asciiZero) } else { JSONSerializer.write(value, into: &out) }
  }

  /// Writes a `JSONValue` carried by the value, with its structure.
  func writeValue(_ value: JSONValue) {
    guard scalarsAsZero else { return JSONSerializer.write(value, into: &out) }
    JSONSerializer.write(Self.structure(of: value), into: &out)
  }

  static func structure(of value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members): .object(members.mapValues(structure))
    case .array(let elements): .array(elements.map(structure))
    default: .number(.int(0))
    }
  }

  /// Writes a string value (not a key).
  func writeString(_ value: String) {
    if scalarsAsZero { out.append(.asciiZero) } else { JSONSerializer.writeString(value, into: &out) }
  }

  /// The bytes of `value`, or nil when it must go through the tree.
  func write<T: Encodable>(_ value: T) -> [UInt8]? {
    let root = push(.pending, isMember: false)
    do {
      try value.encode(to: ByteEncoder(writer: self, frame: root, codingPath: []))
    } catch {
      return nil
    }
    // Nothing encoded is an error the tree words.
    guard !failed, frames.first?.kind != .pending else { return nil }
    while !frames.isEmpty { closeInnermost() }
    return failed ? nil : out
  }

  func fail() { failed = true }

  func push(_ kind: Frame.Kind, isMember: Bool) -> Int {
    let id = nextID
    nextID += 1
    frames.append(Frame(id: id, kind: kind, isMember: isMember))
    return id
  }

  /// Makes frame `id` the innermost by closing the frames opened after it; false when it is
  /// closed already (or the writer failed).
  func activate(_ id: Int) -> Bool {
    if !failed, frames.last?.id == id { return true }
    guard !failed, let index = frames.lastIndex(where: { $0.id == id }) else {
      failed = true
      return false
    }
    while frames.count > index + 1 { closeInnermost() }
    return true
  }

  /// The kind of the innermost frame (after `activate`).
  var kind: Frame.Kind {
    get { frames[frames.count - 1].kind }
    set { frames[frames.count - 1].kind = newValue }
  }

  /// Closes the value frame `id` that a nested `encode(to:)` wrote into, with what it opened.
  func finish(_ id: Int) {
    guard activate(id) else { return }
    closeInnermost()
  }

  /// Starts member `key` of the innermost frame, an object.
  func beginMember(_ key: String) {
    frames[frames.count - 1].members.append((key, out.count))
    JSONSerializer.writeString(key, into: &out)
    out.append(.colon)
  }

  /// Counts an element of the innermost frame, an array; returns its index.
  func beginElement() -> Int {
    frames[frames.count - 1].count += 1
    return frames[frames.count - 1].count - 1
  }

  func closeInnermost() {
    let frame = frames.removeLast()
    switch frame.kind {
    case .pending:
      // Nothing written reads as {}, as in the tree.
      out.append(.openBrace)
      out.append(.closeBrace)
    case .scalar:
      break
    case .array:
      if frame.count > 0 { out[out.count - 1] = .closeBracket } else { out.append(.closeBracket) }
    case .object:
      if frame.members.isEmpty {
        out.append(.closeBrace)
      } else {
        sortMembers(frame.members)
        out[out.count - 1] = .closeBrace
      }
    }
    if frame.isMember { out.append(.comma) }
  }

  /// Objects of at most this many members are sorted by `sortFewMembers`.
  static let fewMembers = 16

  /// `sortMembers` for an object of a few members (a state's fields), with no allocation but
  /// the bytes set aside: the order and the offsets live on the stack, sorted by insertion.
  /// The largest member is moved once, as in `sortMembers`. `members` has no duplicate key.
  private func sortFewMembers(_ members: [(key: String, start: Int)]) {
    let count = members.count
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * count) { scratch in
      guard let ends = scratch.baseAddress else { return }
      let order = ends + count
      let target = ends + 2 * count
      var largest = 0
      for index in 0..<count {
        ends[index] = index + 1 < count ? members[index + 1].start : out.count
        order[index] = index
        if ends[index] - members[index].start > ends[largest] - members[largest].start { largest = index }
      }
      for index in 1..<count {
        let moving = order[index]
        var slot = index
        while slot > 0 && JSONSerializer.utf8Precedes(members[moving].key, members[order[slot - 1]].key) {
          order[slot] = order[slot - 1]
          slot -= 1
        }
        order[slot] = moving
      }
      for slot in 1..<count where members[order[slot - 1]].key == members[order[slot]].key {
        failed = true
        return
      }
      var position = members[0].start
      for slot in 0..<count {
        target[order[slot]] = position
        position += ends[order[slot]] - members[order[slot]].start
      }
      let first = members[0].start
      let asideCount = out.count - first - (ends[largest] - members[largest].start)
      out.withUnsafeMutableBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, asideCount)) { aside in
          guard let saved = aside.baseAddress else { return }
          // The others aside, in member order; then the largest to its place (source and
          // target may overlap); then the others back.
          var at = 0
          for index in 0..<count where index != largest {
            let length = ends[index] - members[index].start
            saved.advanced(by: at).update(from: base + members[index].start, count: length)
            at += length
          }
          memmove(base + target[largest], base + members[largest].start, ends[largest] - members[largest].start)
          at = 0
          for index in 0..<count where index != largest {
            let length = ends[index] - members[index].start
            (base + target[index]).update(from: saved.advanced(by: at), count: length)
            at += length
          }
        }
      }
    }
  }

  /// Puts an object's members (each ending in a comma, up to the end of `out`) in the UTF-8 order
  /// of their keys, in place. The largest member is moved once; only the others are copied aside,
  /// so a state of one long list and a few scalars costs the scalars.
  private func sortMembers(_ members: [(key: String, start: Int)]) {
    var sorted = true
    for index in members.indices.dropFirst() {
      let previous = members[index - 1].key
      let key = members[index].key
      if previous == key {
        failed = true
        return
      }
      if !JSONSerializer.utf8Precedes(previous, key) { sorted = false }
    }
    if sorted { return }
    if members.count <= Self.fewMembers {
      sortFewMembers(members)
      return
    }
    let ends = members.indices.map { $0 + 1 < members.count ? members[$0 + 1].start : out.count }
    let order = members.indices.sorted { JSONSerializer.utf8Precedes(members[$0].key, members[$1].key) }
    for index in order.indices.dropFirst() where members[order[index - 1]].key == members[order[index]].key {
      failed = true
      return
    }
    let largest = members.indices.max { ends[$0] - members[$0].start < ends[$1] - members[$1].start } ?? 0
    var aside: [UInt8] = []
    var asideStart = [Int](repeating: 0, count: members.count)
    for index in members.indices where index != largest {
      asideStart[index] = aside.count
      aside.append(contentsOf: out[members[index].start..<ends[index]])
    }
    var target = [Int](repeating: 0, count: members.count)
    var position = members[0].start
    for index in order {
      target[index] = position
      position += ends[index] - members[index].start
    }
    out.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      let length = ends[largest] - members[largest].start
      // Source and target may overlap.
      memmove(base + target[largest], base + members[largest].start, length)
      aside.withUnsafeBufferPointer { saved in
        guard let savedBase = saved.baseAddress else { return }
        for index in members.indices where index != largest {
          (base + target[index]).update(
            from: savedBase + asideStart[index], count: ends[index] - members[index].start)
        }
      }
    }
  }
}
