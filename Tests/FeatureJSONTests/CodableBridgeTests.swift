import FeatureJSON
import Foundation
import Testing

@Suite("Codable bridge")
struct CodableBridgeTests {
  let inventory = Inventory(
    title: "shop",
    items: [
      .init(name: "a", url: "https://x.test/a", tags: ["new", "é"], price: 0.1, count: 3),
      .init(name: "b", url: nil, tags: [], price: 2, count: -1),
    ],
    owner: nil,
    ratings: ["a": 5, "b": 4],
    matrix: [[1, -128], [127]],
    sections: ["main": [.init(name: "c", url: nil, tags: ["x"], price: 1e-3, count: 0)]],
    optionalList: [1, nil, 3],
    extra: ["any": [1, "json", nil]],
    flag: true,
    ratio: 0.1)

  @Test func nestedStructsRoundTrip() throws {
    #expect(try roundTrip(inventory) == inventory)
  }

  @Test func encodedShapeOmitsNilOptionalsAndKeepsNulls() throws {
    let value = try JSONValueEncoder().encode(inventory)
    #expect(value["owner"] == nil)
    #expect(value["items"]?.arrayValue?[1]["url"] == nil)
    #expect(value["optionalList"] == [1, nil, 3])
    #expect(value["matrix"] == [[1, -128], [127]])
    #expect(value["extra"] == ["any": [1, "json", nil]])
    #expect(value["ratio"]?.serialized() == "0.1")
    #expect(value["items"]?.arrayValue?[0]["price"] == .number(.double(0.1)))
  }

  @Test func integerWidthsRoundTripAtTheirLimits() throws {
    let maximum = Widths(
      int8: .max, int16: .max, int32: .max, int64: .max, int: .max, uint8: .max, uint16: .max,
      uint32: .max, uint64: UInt64(Int64.max), uint: UInt(Int64.max))
    let minimum = Widths(
      int8: .min, int16: .min, int32: .min, int64: .min, int: .min, uint8: 0, uint16: 0,
      uint32: 0, uint64: 0, uint: 0)
    #expect(try roundTrip(maximum) == maximum)
    #expect(try roundTrip(minimum) == minimum)
  }

  @Test func integralDoublesDecodeAsIntegers() throws {
    let value: JSONValue = ["value": 3.0]
    #expect(try JSONValueDecoder().decode(OptionalField.self, from: value).value == 3)
  }

  @Test func integersDecodeAsFloatingPoint() throws {
    #expect(try JSONValueDecoder().decode(Double.self, from: 5) == 5.0)
    #expect(try JSONValueDecoder().decode(Float.self, from: 0.1) == Float(0.1))
  }

  @Test func floatExtremesRoundTrip() throws {
    let values: [Float] = [
      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 0.1, -0.0,
    ]
    let decoded = try roundTrip(values)
    #expect(decoded.map(\.bitPattern) == values.map(\.bitPattern))
  }

  @Test func missingAndNullOptionalsDecodeAsNil() throws {
    let decoder = JSONValueDecoder()
    #expect(try decoder.decode(OptionalField.self, from: [:]).value == nil)
    #expect(try decoder.decode(OptionalField.self, from: ["value": nil]).value == nil)
    #expect(try decoder.decode(Int?.self, from: nil) == nil)
    #expect(try decoder.decode([Int?].self, from: [1, nil]) == [1, nil])
  }

  @Test func presentOptionalOfWrongTypeStillThrows() {
    #expect(throws: DecodingError.self) {
      try JSONValueDecoder().decode(OptionalField.self, from: ["value": "x"])
    }
  }

  @Test func handWrittenNestedContainersRoundTrip() throws {
    let shape = Shape(x: 3, y: -4, kind: "cartesian", rows: [["a", "b"], [], ["c"]])
    let encoded = try JSONValueEncoder().encode(shape)
    #expect(
      encoded.serialized()
        == #"{"coords":[3,-4],"meta":{"kind":"cartesian"},"rows":[["a","b"],[],["c"]]}"#)
    #expect(try roundTrip(shape) == shape)
  }

  @Test func superEncoderNestsUnderSuperKey() throws {
    let value = try JSONValueEncoder().encode(Derived(id: 7, extra: "x"))
    #expect(value == ["extra": "x", "super": ["id": 7]])
    let decoded = try JSONValueDecoder().decode(Derived.self, from: value)
    #expect(decoded.id == 7)
    #expect(decoded.extra == "x")
  }

  @Test func jsonValueEncodesAndDecodesAsItself() throws {
    let value: JSONValue = ["a": [1, 2.5, "s", nil, true, [:]]]
    #expect(try JSONValueEncoder().encode(value) == value)
    #expect(try JSONValueDecoder().decode(JSONValue.self, from: value) == value)
  }

  @Test func jsonValueInteroperatesWithFoundationCoders() throws {
    let value: JSONValue = ["a": 1, "b": 1.5, "c": "s", "d": [true, nil], "e": ["f": -2]]
    let data = try JSONEncoder().encode(value)
    #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    let text = String(decoding: data, as: UTF8.self)
    #expect(try JSONValue.parse(text) == value)
  }

  @Test func encodingRejectsUnrepresentableValues() throws {
    let encoder = JSONValueEncoder()
    let tooBig = #expect(throws: EncodingError.self) {
      try encoder.encode(["n": UInt64.max])
    }
    #expect(
      tooBig.map(describeDecodingError)
        == #"n: UInt64 value 18446744073709551615 for "n" does not fit in a 64-bit JSON integer"#)
    let notANumber = #expect(throws: EncodingError.self) {
      try encoder.encode([Double.nan])
    }
    #expect(
      notANumber.map(describeDecodingError) == "[0]: nan for index 0 has no JSON representation")
    #expect(throws: EncodingError.self) { try encoder.encode(Float.infinity) }
  }

  @Test func containerMisuseThrowsInsteadOfTrapping() {
    let error = #expect(throws: EncodingError.self) {
      try JSONValueEncoder().encode(Misbehaving())
    }
    #expect(
      error.map(describeDecodingError)
        == "encoded a second value through a single value container")
  }

  @Test func topLevelValueThatEncodesNothingIsAnError() {
    let error = #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Silent()) }
    #expect(error.map(describeDecodingError) == "top-level Silent did not encode any values")
  }

  @Test func nestedValueThatEncodesNothingBecomesEmptyObject() throws {
    #expect(try JSONValueEncoder().encode([Silent()]) == [[:]])
  }

  @Test func userInfoReachesTheCodable() throws {
    struct Probe: Codable {
      static let key = CodingUserInfoKey(rawValue: "probe")!
      var seen: String
      init(seen: String) { self.seen = seen }
      init(from decoder: any Decoder) throws {
        seen = decoder.userInfo[Self.key] as? String ?? "none"
      }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoder.userInfo[Self.key] as? String ?? "none")
      }
    }
    var encoder = JSONValueEncoder()
    encoder.userInfo[Probe.key] = "enc"
    var decoder = JSONValueDecoder()
    decoder.userInfo[Probe.key] = "dec"
    #expect(try encoder.encode([Probe(seen: "")]) == ["enc"])
    #expect(try decoder.decode([Probe].self, from: [1]).first?.seen == "dec")
  }
}
