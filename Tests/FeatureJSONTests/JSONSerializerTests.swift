import FeatureJSON
import Testing

@Suite("Serializing")
struct JSONSerializerTests {
  @Test func compactOutputHasNoWhitespace() {
    let value: JSONValue = ["b": [1, true, nil], "a": ["c": "d"], "e": [], "f": [:]]
    #expect(value.serialized() == #"{"a":{"c":"d"},"b":[1,true,null],"e":[],"f":{}}"#)
  }

  @Test func keysAreOrderedByUTF8Bytes() {
    let keys = ["é", "b", "~", "Z", "aa", "a", "A", "😀", "ä", "z", "", "ab"]
    let value = JSONValue.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, 0) }))
    #expect(
      value.serialized()
        == #"{"":0,"A":0,"Z":0,"a":0,"aa":0,"ab":0,"b":0,"z":0,"~":0,"ä":0,"é":0,"😀":0}"#)
  }

  @Test func keyOrderIgnoresUnicodeNormalisation() {
    // Swift's `<` would compare the NFC form ("é" > "f"); bytes say 'e' < 'f'.
    let value: JSONValue = ["f": 1, "e\u{301}x": 2]
    #expect(value.serialized() == "{\"e\u{301}x\":2,\"f\":1}")
  }

  @Test func keysSharingAnEightBytePrefixStillSort() {
    let value: JSONValue = ["prefix12b": 2, "prefix12": 0, "prefix12a": 1, "prefix12\u{0}": 3]
    #expect(
      value.serialized() == "{\"prefix12\":0,\"prefix12\\u0000\":3,\"prefix12a\":1,\"prefix12b\":2}"
    )
  }

  @Test func snapshotRestoreSnapshotIsByteIdentical() throws {
    var members: [String: JSONValue] = [:]
    for index in (0..<200).reversed() {
      members["key\(index * 7919 % 200)"] = [
        "n": .number(.int(Int64(index))), "d": .number(.double(Double(index) / 3)),
        "s": .string("v\(index)\u{E9}\n"), "list": [.number(.int(Int64(index))), nil, false],
      ]
    }
    let snapshot = JSONValue.object(members).serialized()
    let restored = try JSONValue.parse(snapshot)
    #expect(restored == .object(members))
    #expect(restored.serialized() == snapshot)
  }

  @Test func equalValuesBuiltInDifferentOrdersSerializeIdentically() {
    var forward: [String: JSONValue] = [:]
    var backward: [String: JSONValue] = [:]
    let keys = (0..<64).map { "k\($0)" }
    for key in keys {
      forward[key] = .string(key)
    }
    for key in keys.reversed() {
      backward[key] = .string(key)
    }
    #expect(JSONValue.object(forward).serialized() == JSONValue.object(backward).serialized())
  }

  @Test func escapesOnlyWhatRFC8259Requires() {
    let value = JSONValue.string(
      "q\" b\\ s/ n\n r\r t\t b\u{8} f\u{C} nul\u{0} us\u{1F} del\u{7F} é 😀 \u{2028}")
    #expect(
      value.serialized()
        == "\"q\\\" b\\\\ s/ n\\n r\\r t\\t b\\b f\\f nul\\u0000 us\\u001f del\u{7F} é 😀 \u{2028}\""
    )
  }

  @Test func escapedStringsRoundTrip() throws {
    let original = JSONValue.string((0..<128).map { String(UnicodeScalar(UInt8($0))) }.joined())
    #expect(try JSONValue.parse(original.serialized()) == original)
  }

  @Test(arguments: [
    (Int64.max, "9223372036854775807"),
    (Int64.min, "-9223372036854775808"),
    (0, "0"),
    (-7, "-7"),
    (10, "10"),
    (1_234_567_890, "1234567890"),
  ])
  func integersPrintExactly(value: Int64, text: String) {
    #expect(JSONValue.number(.int(value)).serialized() == text)
  }

  @Test(arguments: [
    (0.1, "0.1"),
    (1.0, "1.0"),
    (-0.0, "-0.0"),
    (1e308, "1e+308"),
    (.leastNonzeroMagnitude, "5e-324"),
    (0.30000000000000004, "0.30000000000000004"),
    (123456.789, "123456.789"),
    (1e16, "1e+16"),
  ])
  func doublesPrintShortestRoundTripText(value: Double, text: String) throws {
    let serialized = JSONValue.number(.double(value)).serialized()
    #expect(serialized == text)
    guard case .number(.double(let reparsed)) = try JSONValue.parse(serialized) else {
      Issue.record("\(serialized) did not re-parse as a double")
      return
    }
    #expect(reparsed.bitPattern == value.bitPattern)
  }

  @Test func nonFiniteDoublesBecomeNull() throws {
    let value: JSONValue = [
      .number(.double(.nan)), .number(.double(.infinity)), .number(.double(-.infinity)),
    ]
    #expect(value.serialized() == "[null,null,null]")
    #expect(try JSONValue.parse(value.serialized()) == [nil, nil, nil])
  }

  @Test func serializedIntoAppendsToExistingBytes() {
    var bytes = Array("prefix:".utf8)
    JSONValue.object(["a": [1, 2]]).serialized(into: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == #"prefix:{"a":[1,2]}"#)
  }

  @Test func prettyPrintedUsesTwoSpacesAndSortedKeys() {
    let value: JSONValue = ["b": ["x": 1, "w": [true, nil]], "a": [1, 2], "c": [], "d": [:]]
    let expected = """
      {
        "a": [
          1,
          2
        ],
        "b": {
          "w": [
            true,
            null
          ],
          "x": 1
        },
        "c": [],
        "d": {}
      }
      """
    #expect(value.prettyPrinted() == expected)
  }

  @Test func prettyPrintedScalarsMatchCompactForm() {
    #expect(JSONValue.string("a\"b").prettyPrinted() == #""a\"b""#)
    #expect(JSONValue.number(.double(2.5)).prettyPrinted() == "2.5")
  }

  @Test func prettyPrintedOutputParsesBack() throws {
    let value: JSONValue = ["list": [["k": "v"], [], [:]], "n": -1.25e-7]
    #expect(try JSONValue.parse(value.prettyPrinted()) == value)
  }

  @Test func descriptionIsCompactJSON() {
    let value: JSONValue = ["a": [1]]
    #expect(String(describing: value) == #"{"a":[1]}"#)
  }
}
