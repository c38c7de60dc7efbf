import FeatureJSON
import Testing

/// What the tree encoder writes for `value`: the bytes `JSONBytesEncoder` must match.
private func treeBytes<T: Encodable>(_ value: T) throws -> String {
  try JSONValueEncoder().encode(value).serialized()
}

private func streamed<T: Encodable>(_ value: T) throws -> String {
  String(decoding: try JSONBytesEncoder().encode(value), as: UTF8.self)
}

/// Members declared out of key order, a long list among them, nested and optional values.
private struct Model: Codable, Equatable {
  struct Page: Codable, Equatable {
    var offset: Int
    var urls: [String]
  }
  var zeta: [String]
  var alpha: Int
  var note: String?
  var pages: [Page]
  var byName: [String: Double]
  var flags: [Bool?]
  var mode: Mode
  var empty: [Int]
  var payload: JSONValue

  enum Mode: Codable, Equatable {
    case idle
    case loading(offset: Int, reason: String?)
  }
}

private let model = Model(
  zeta: (0..<1_000).map { "https://cdn2.thecatapi.com/images/z\($0).jpg" }, alpha: -3, note: "tab\there \"q\" é",
  pages: [.init(offset: 0, urls: ["a", "b"]), .init(offset: 2, urls: [])],
  byName: Dictionary(uniqueKeysWithValues: (0..<40).map { ("key\($0)", Double($0) / 8) }), flags: [true, nil, false],
  mode: .loading(offset: 7, reason: nil), empty: [],
  payload: ["z": [1, 2.5, "x", nil], "a": ["nested": true]])

/// Uses a container after one opened later, which only the tree can follow.
private struct Interleaved: Encodable {
  enum Keys: String, CodingKey { case first, second }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    var first = container.nestedUnkeyedContainer(forKey: .first)
    var second = container.nestedUnkeyedContainer(forKey: .second)
    try first.encode(1)
    try second.encode(2)
    try first.encode(3)
  }
}

/// Writes one key twice: the tree keeps the last.
private struct TwiceKeyed: Encodable {
  enum Keys: String, CodingKey { case value }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(1, forKey: .value)
    try container.encode(2, forKey: .value)
  }
}

/// Writes one key twice with another between, out of order: found only once the few members
/// are sorted.
private struct TwiceKeyedApart: Encodable {
  enum Keys: String, CodingKey { case beta, alpha }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(1, forKey: .beta)
    try container.encode(2, forKey: .alpha)
    try container.encode(3, forKey: .beta)
  }
}

/// A few members out of order, the largest in the middle: sorted on the stack, the largest moved
/// once.
private struct FewOutOfOrder: Codable {
  var zulu = 1
  var mike = (0..<50).map { "item \($0)" }
  var alpha: Bool? = true
  var echo = "e"
}

@Suite("Encoding straight to bytes")
struct JSONBytesEncoderTests {
  @Test func writesTheTreesBytesForAModelWithKeysOutOfOrder() throws {
    let bytes = try streamed(model)
    #expect(bytes == (try treeBytes(model)))
    #expect(bytes.hasPrefix(#"{"alpha":-3,"byName":{"key0":0.0,"key1":0.125,"key10":1.25,"#))
    let back = try JSONValueDecoder().decode(Model.self, from: JSONValue.parse(bytes))
    #expect(back == model)
  }

  @Test func writesTheTreesBytesForTheSharedFixtures() throws {
    let shape = Shape(x: 1, y: -2, kind: "box", rows: [["a", "b"], [], ["c"]])
    #expect(try streamed(shape) == treeBytes(shape))
    let derived = Derived(id: 4, extra: "more")
    #expect(try streamed(derived) == treeBytes(derived))
    #expect(try streamed(OptionalField(value: nil)) == "{}")
    #expect(try streamed([Silent(), Silent()]) == "[{},{}]")
    let widths = Widths(
      int8: .min, int16: .min, int32: .min, int64: .min, int: .max, uint8: .max, uint16: .max, uint32: .max,
      uint64: UInt64(Int64.max), uint: 0)
    #expect(try streamed(widths) == treeBytes(widths))
    #expect(try streamed(Float(0.1)) == "0.1")
    #expect(try streamed(JSONValue.object([:])) == "{}")
  }

  /// `value` with every scalar replaced by 0: the structure `encodeStructure` writes.
  private func zeroed(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members): .object(members.mapValues(zeroed))
    case .array(let elements): .array(elements.map(zeroed))
    default: 0
    }
  }

  @Test func theStructureHasEveryKeyAndLengthAndNoValue() throws {
    let structure = try JSONBytesEncoder().encodeStructure(model)
    let tree = try JSONValueEncoder().encode(model)
    #expect(try structure.withUnsafeBytes { try JSONValue.parse(bytes: $0) } == zeroed(tree))
    #expect(String(decoding: structure, as: UTF8.self).hasPrefix(#"{"alpha":0,"byName":{"key0":0,"key1":0,"#))
    // The thousand URLs are a thousand zeros.
    #expect(structure.count < 3_000)
    #expect(try JSONBytesEncoder().encodeStructure(Interleaved()) == Array(#"{"first":[1,3],"second":[2]}"#.utf8))
  }

  @Test func whatOnlyTheTreeCanFollowGoesThroughTheTree() throws {
    #expect(try streamed(Interleaved()) == #"{"first":[1,3],"second":[2]}"#)
    #expect(try streamed(TwiceKeyed()) == (try treeBytes(TwiceKeyed())))
    #expect(try streamed(TwiceKeyedApart()) == (try treeBytes(TwiceKeyedApart())))
  }

  @Test func aFewMembersOutOfOrderAreWrittenInKeyOrder() throws {
    let value = FewOutOfOrder()
    #expect(try streamed(value) == (try treeBytes(value)))
    #expect(try streamed(value).hasPrefix(#"{"alpha":true,"echo":"e","mike":["item 0","#))
  }

  @Test func errorsAreTheTreesErrors() {
    #expect(throws: EncodingError.self) { try JSONBytesEncoder().encode(Double.nan) }
    #expect(throws: EncodingError.self) { try JSONBytesEncoder().encode(["a": UInt64.max]) }
    #expect(throws: EncodingError.self) { try JSONBytesEncoder().encode(Misbehaving()) }
    #expect(throws: EncodingError.self) { try JSONBytesEncoder().encode(Silent()) }
    func failure(_ body: () throws -> Any) -> String {
      do {
        _ = try body()
        return "no error"
      } catch {
        return "\(error)"
      }
    }
    let streamedFailure = failure { try JSONBytesEncoder().encode(["a": [1.0, .infinity]]) }
    #expect(streamedFailure == failure { try JSONValueEncoder().encode(["a": [1.0, .infinity]]) })
    #expect(streamedFailure.contains("has no JSON representation"))
  }
}
