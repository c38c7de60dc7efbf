import FeatureJSON
import Testing

@Suite("JSONValue accessors and literals")
struct JSONValueTests {
  let sample: JSONValue = [
    "name": "counter", "count": 3, "ratio": 0.5, "whole": 4.0, "on": true, "none": nil,
    "list": [1, "two"], "inner": ["x": 1],
  ]

  @Test func subscriptReadsObjectMembersOnly() {
    #expect(sample["name"] == .string("counter"))
    #expect(sample["missing"] == nil)
    #expect(JSONValue.array([1])["name"] == nil)
    #expect(sample["inner"]?["x"] == .number(.int(1)))
  }

  @Test func typedAccessors() {
    #expect(sample["name"]?.stringValue == "counter")
    #expect(sample["count"]?.intValue == 3)
    #expect(sample["count"]?.doubleValue == 3.0)
    #expect(sample["ratio"]?.doubleValue == 0.5)
    #expect(sample["on"]?.boolValue == true)
    #expect(sample["list"]?.arrayValue == [1, "two"])
    #expect(sample["inner"]?.objectValue == ["x": 1])
    #expect(sample["none"] == .null)
  }

  @Test func intValueAcceptsOnlyIntegralDoublesInRange() {
    #expect(JSONValue.number(.double(4.0)).intValue == 4)
    #expect(JSONValue.number(.double(-0.0)).intValue == 0)
    #expect(JSONValue.number(.double(0.5)).intValue == nil)
    #expect(JSONValue.number(.double(1e19)).intValue == nil)
    #expect(JSONValue.number(.double(-0x1p63)).intValue == Int64.min)
    #expect(JSONValue.number(.double(.nan)).intValue == nil)
    #expect(JSONValue.number(.double(.infinity)).intValue == nil)
  }

  @Test func accessorsReturnNilForOtherKinds() {
    let string: JSONValue = "3"
    #expect(string.intValue == nil)
    #expect(string.doubleValue == nil)
    #expect(string.boolValue == nil)
    #expect(string.arrayValue == nil)
    #expect(string.objectValue == nil)
    #expect(JSONValue.number(.int(1)).stringValue == nil)
  }

  @Test func literalsBuildTheExpectedCases() {
    let value: JSONValue = ["a": [nil, true, 1, 1.5, "s"]]
    #expect(
      value
        == .object([
          "a": .array([.null, .bool(true), .number(.int(1)), .number(.double(1.5)), .string("s")])
        ]))
  }

  @Test func repeatedLiteralKeyKeepsLastValue() {
    let value: JSONValue = ["a": 1, "a": 2]
    #expect(value == ["a": 2])
  }

  @Test func intAndDoubleAreDistinctValues() {
    #expect(JSONValue.number(.int(1)) != JSONValue.number(.double(1)))
  }
}
