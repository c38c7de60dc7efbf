/// The members of a top-level JSON object in document order: the shape of an action crossing the
/// plugin ABI, read into one small array with no dictionary and no hashing.
public struct FlatObject: Sendable {
  /// Above this many members the duplicate-key check would grow quadratic: `parse` declines.
  static let maximumMembers = 32

  /// One member: a struct rather than a tuple, so arrays of them are destroyed by specialized
  /// code instead of the runtime's generic tuple witnesses.
  public struct Member: Sendable {
    public let key: String
    public let value: JSONValue

    public init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  public private(set) var members: [FlatObject.Member]

  init(members: [FlatObject.Member]) { self.members = members }

  /// The member named `key`, if any.
  public subscript(key: String) -> JSONValue? {
    for member in members where member.key == key { return member.value }
    return nil
  }

  /// The same members as a `JSONValue` object, for messages and the general path.
  public var value: JSONValue {
    .object(Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }))
  }

  /// Parses a NUL-terminated UTF-8 document in place. Nil when it is valid or invalid JSON of
  /// another shape than an object of at most 32 members: `JSONValue.parse` then says what it is.
  /// Errors inside an object are the ones `JSONValue.parse` reports.
  public static func parse(utf8CString cString: UnsafePointer<CChar>) throws(JSONParseError) -> FlatObject? {
    let raw = UnsafeRawPointer(cString)
    let bytes = raw.assumingMemoryBound(to: UInt8.self)
    let length = strlenBytes(bytes)
    guard length > 0 else { return nil }
    var parser = JSONParser(bytes: bytes, count: length)
    return try parser.parseFlatDocument()
  }
}

private func strlenBytes(_ bytes: UnsafePointer<UInt8>) -> Int {
  var length = 0
  while bytes[length] != 0 { length += 1 }
  return length
}

extension JSONParser {
  /// One object surrounded by optional whitespace, its members kept in order; nil for any
  /// other top-level value or a longer object.
  mutating func parseFlatDocument() throws(JSONParseError) -> FlatObject? {
    skipWhitespace()
    guard index < count, bytes[index] == .openBrace else { return nil }
    var members: [FlatObject.Member] = []
    if try !enterContainer(closedBy: .closeBrace) {
      members.reserveCapacity(4)
      while true {
        let (key, keyOffset) = try memberKey()
        let value = try parseValue()
        for member in members where member.key == key {
          throw JSONParseError(message: "duplicate key \"\(key)\" in object", offset: keyOffset)
        }
        guard members.count < FlatObject.maximumMembers else { return nil }
        members.append(FlatObject.Member(key: key, value: value))
        if try containerEnds(closedBy: .closeBrace) { break }
      }
    }
    skipWhitespace()
    if index < count {
      throw JSONParseError(message: "unexpected \(describeByte(at: index)) after the top-level value", offset: index)
    }
    return FlatObject(members: members)
  }
}
