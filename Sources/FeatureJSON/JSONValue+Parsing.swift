// Public parse entry points. All three funnel into `JSONParser`, which reads
// the bytes in place.

extension JSONValue {
  /// Parses a complete JSON text (RFC 8259, strict).
  public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
    var text = text
    let result = text.withUTF8 { buffer in
      Result { () throws(JSONParseError) -> JSONValue in
        try parse(bytes: UnsafeRawBufferPointer(buffer))
      }
    }
    return try result.get()
  }

  /// Parses a complete JSON text from UTF-8 bytes without copying them.
  public static func parse(bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
    guard let base = bytes.baseAddress, bytes.count > 0 else {
      throw JSONParseError(message: "unexpected end of input, expected a JSON value", offset: 0)
    }
    var parser = JSONParser(
      bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    return try parser.parseDocument()
  }

  /// Parses a complete JSON text for the shape of its objects only: an array whose elements are
  /// all scalars comes back empty, since no member can be in it. Comparing which members two
  /// values have (a state's 100,000 URLs) so costs no tree of their elements.
  public static func parseMembers(bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
    guard let base = bytes.baseAddress, bytes.count > 0 else {
      throw JSONParseError(message: "unexpected end of input, expected a JSON value", offset: 0)
    }
    var parser = JSONParser(bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    parser.membersOnly = true
    return try parser.parseDocument()
  }

  /// Parses a NUL-terminated UTF-8 C string in place, as handed across the
  /// plugin ABI; the bytes are never copied into a `String` first.
  public static func parse(
    utf8CString cString: UnsafePointer<CChar>
  ) throws(JSONParseError) -> JSONValue {
    let raw = UnsafeRawPointer(cString)
    let bytes = raw.assumingMemoryBound(to: UInt8.self)
    var length = 0
    while bytes[length] != 0 {
      length += 1
    }
    return try parse(bytes: UnsafeRawBufferPointer(start: raw, count: length))
  }
}

extension JSONValue {
  /// Checks that `bytes` are one complete JSON text, as `parse(bytes:)` would, without building
  /// it: nothing is kept but object keys, so checking a large document costs no tree. Throws the
  /// error `parse` would throw.
  public static func validate(bytes: UnsafeRawBufferPointer) throws(JSONParseError) {
    guard let base = bytes.baseAddress, bytes.count > 0 else {
      throw JSONParseError(message: "unexpected end of input, expected a JSON value", offset: 0)
    }
    var parser = JSONParser(bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    try parser.skipDocument()
  }

  /// `validate(bytes:)` over a text.
  public static func validate(_ text: String) throws(JSONParseError) {
    var text = text
    let result = text.withUTF8 { buffer in
      Result { () throws(JSONParseError) in try validate(bytes: UnsafeRawBufferPointer(buffer)) }
    }
    try result.get()
  }

  /// What `validate(_:member:)` found of a member.
  public enum MemberCheck: Sendable, Equatable {
    case string
    case notAString
    case missing
    /// The text is JSON, but not an object.
    case notAnObject
  }

  /// `validate(_:)`, also saying whether the text is an object whose `key` member is a string:
  /// what an action needs, without building the object (no dictionary, no values).
  public static func validate(_ text: String, member key: String) throws(JSONParseError) -> MemberCheck {
    var text = text
    let result = text.withUTF8 { buffer in
      Result { () throws(JSONParseError) -> (isObject: Bool, watched: UInt8?) in
        guard let base = buffer.baseAddress, buffer.count > 0 else {
          throw JSONParseError(message: "unexpected end of input, expected a JSON value", offset: 0)
        }
        var parser = JSONParser(bytes: base, count: buffer.count)
        return try parser.skipDocument(watching: key)
      }
    }
    let (isObject, watched) = try result.get()
    guard isObject else { return .notAnObject }
    guard let watched else { return .missing }
    return watched == .quote ? .string : .notAString
  }
}
