import FeatureJSON
import Testing

@Suite("Tagged coding")
struct TaggedCodingTests {
  let encoder = JSONValueEncoder()
  let decoder = JSONValueDecoder()

  static let cases: [(Action, JSONValue)] = [
    (.increment, ["type": "increment"]),
    (.set(left: 3, right: 9), ["type": "set", "left": 3, "right": 9]),
    (.loaded(urls: ["a", "b"]), ["type": "loaded", "urls": ["a", "b"]]),
    (.loaded(urls: []), ["type": "loaded", "urls": []]),
    (.wrap("x"), ["type": "wrap", "_0": "x"]),
    (.pair(1, "b"), ["type": "pair", "_0": 1, "_1": "b"]),
    (.rename(name: nil, aliases: ["n"]), ["type": "rename", "aliases": ["n"]]),
    (.rename(name: "a", aliases: nil), ["type": "rename", "name": "a"]),
    (
      .batch(items: [[1], [], [2, 3]], note: nil), ["type": "batch", "items": [[1], [], [2, 3]]]
    ),
    (
      .configure(mode: .slow, inner: .level(2)),
      ["type": "configure", "mode": "slow", "inner": ["level": ["_0": 2]]]
    ),
    (
      .configure(mode: .fast, inner: .on),
      ["type": "configure", "mode": "fast", "inner": ["on": [:]]]
    ),
  ]

  @Test(arguments: cases)
  func encodesToFlatShape(action: Action, flat: JSONValue) throws {
    #expect(try encoder.encodeTagged(action) == flat)
  }

  @Test(arguments: cases)
  func decodesFromFlatShape(action: Action, flat: JSONValue) throws {
    #expect(try decoder.decodeTagged(Action.self, from: flat) == action)
    // The fast path must agree with decoding the materialized nested shape.
    #expect(try decoder.decode(Action.self, from: TaggedCoding.nest(flat)) == action)
  }

  @Test(arguments: cases)
  func nestMatchesSynthesizedCodable(action: Action, flat: JSONValue) throws {
    #expect(try TaggedCoding.nest(flat) == encoder.encode(action))
    #expect(try TaggedCoding.flatten(encoder.encode(action)) == flat)
  }

  @Test func decodesFromText() throws {
    let decode = { (text: String) in
      try decoder.decodeTagged(Action.self, from: JSONValue.parse(text))
    }
    #expect(try decode(#"{"type":"increment"}"#) == .increment)
    #expect(try decode(#"{"left":3,"type":"set","right":9}"#) == .set(left: 3, right: 9))
    #expect(try decode(#"{"type":"rename","name":null}"#) == .rename(name: nil, aliases: nil))
  }

  @Test func flatTextRoundTripsThroughEncodeTagged() throws {
    for (action, _) in Self.cases {
      let text = try encoder.encodeTagged(action).serialized()
      #expect(try decoder.decodeTagged(Action.self, from: JSONValue.parse(text)) == action)
    }
  }

  @Test func extraMembersOnPayloadlessCaseAreIgnored() throws {
    #expect(
      try decoder.decodeTagged(Action.self, from: ["type": "increment", "x": 1]) == .increment)
  }

  @Test func unknownTypeIsNamed() throws {
    let error = try #require(throws: DecodingError.self) {
      try decoder.decodeTagged(Action.self, from: ["type": "explode"])
    }
    #expect(describeDecodingError(error) == #"type: unknown "type" "explode" for Action"#)
  }

  @Test func payloadErrorsCarryTheCaseInThePath() throws {
    let missing = try #require(throws: DecodingError.self) {
      try decoder.decodeTagged(Action.self, from: ["type": "set", "left": 3])
    }
    #expect(describeDecodingError(missing) == #"set.right: missing key "right""#)
    let wrong = try #require(throws: DecodingError.self) {
      try decoder.decodeTagged(Action.self, from: ["type": "set", "left": "x", "right": 1])
    }
    #expect(
      describeDecodingError(wrong) == #"set.left: expected an integer for "left", found string "x""#
    )
  }

  static let malformedFlat: [(JSONValue, String)] = [
    (.array([]), #"expected an object with a "type" member, found an array of 0 elements"#),
    (["kind": "set"], #"missing "type" member in tagged object"#),
    (["type": 3], #""type" must be a string, found number 3"#),
  ]

  @Test(arguments: malformedFlat)
  func malformedFlatShapesAreRejected(flat: JSONValue, message: String) throws {
    let nestError = try #require(throws: TaggedCodingError.self) { try TaggedCoding.nest(flat) }
    #expect(nestError.message == message)
    let decodeError = try #require(throws: DecodingError.self) {
      try decoder.decodeTagged(Action.self, from: flat)
    }
    #expect(describeDecodingError(decodeError) == message)
  }

  static let malformedNested: [(JSONValue, String)] = [
    (.string("set"), #"expected an object with exactly one case key, found string "set""#),
    ([:], "expected an object with exactly one case key, found 0 keys"),
    (
      ["a": [:], "b": [:]],
      #"expected an object with exactly one case key, found 2 keys ("a", "b")"#
    ),
    (["set": [1]], #"payload of case "set" must be an object, found an array of 1 elements"#),
    (["set": ["type": 1]], #"payload of case "set" must not contain a "type" member"#),
  ]

  @Test(arguments: malformedNested)
  func malformedNestedShapesAreRejected(nested: JSONValue, message: String) throws {
    let error = try #require(throws: TaggedCodingError.self) { try TaggedCoding.flatten(nested) }
    #expect(error.message == message)
    #expect(error.description == message)
  }

  @Test func encodeTaggedRejectsNonEnumShapes() throws {
    let error = try #require(throws: EncodingError.self) { try encoder.encodeTagged([1, 2]) }
    #expect(
      describeDecodingError(error)
        == "expected an object with exactly one case key, found an array of 2 elements")
  }

  @Test func encodeTaggedRejectsPayloadWithTypeLabel() throws {
    enum Clash: Encodable {
      case make(type: String)
    }
    let error = try #require(throws: EncodingError.self) {
      try encoder.encodeTagged(Clash.make(type: "x"))
    }
    #expect(
      describeDecodingError(error) == #"payload of case "make" must not contain a "type" member"#)
  }

  @Test func handWrittenDecodersSeeTheNestedShape() throws {
    #expect(
      try decoder.decodeTagged(Command.self, from: ["type": "move", "dx": 2]) == .move(.init(dx: 2))
    )
    #expect(
      try decoder.decodeTagged(Command.self, from: ["type": "jump", "h": 1]) == .other(["jump"]))
  }

  @Test func decodeTaggedAsJSONValueYieldsTheNestedShape() throws {
    #expect(
      try decoder.decodeTagged(JSONValue.self, from: ["type": "set", "left": 1])
        == ["set": ["left": 1]])
  }

  @Test func nestAndFlattenAreInverse() throws {
    let flat: JSONValue = ["type": "t", "a": [1], "b": ["c": nil]]
    #expect(try TaggedCoding.flatten(TaggedCoding.nest(flat)) == flat)
    let nested: JSONValue = ["t": ["a": 1]]
    #expect(try TaggedCoding.nest(TaggedCoding.flatten(nested)) == nested)
  }
}
