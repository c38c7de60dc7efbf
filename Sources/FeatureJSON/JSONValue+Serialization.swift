// Public serialization entry points over `JSONSerializer`.

extension JSONValue {
  /// Compact JSON with keys in UTF-8 byte order: identical values always
  /// give identical text, which snapshots and hashing rely on.
  public func serialized() -> String {
    var out: [UInt8] = []
    out.reserveCapacity(64)
    JSONSerializer.write(self, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the compact form to `out`, for callers that hand bytes on to C.
  public func serialized(into out: inout [UInt8]) {
    JSONSerializer.write(self, into: &out)
  }

  /// Two-space indented JSON with sorted keys, for logs and people.
  public func prettyPrinted() -> String {
    var out: [UInt8] = []
    JSONSerializer.writePretty(self, indent: 0, into: &out)
    return String(decoding: out, as: UTF8.self)
  }
}

extension JSONValue: CustomStringConvertible {
  public var description: String {
    serialized()
  }
}
