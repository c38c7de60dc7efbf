import FeatureJSON
import Foundation
import Testing

struct Counter: Codable {
  var count: Int
}

struct Catalog: Codable {
  struct Entry: Codable {
    var name: String
    var url: String
  }

  var items: [Entry]
}

struct Narrow: Codable {
  var small: UInt8
}

/// Decodes `value` as `T`, returning the error (or failing the test if the
/// decode unexpectedly succeeds).
func decodingError<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> DecodingError {
  try #require(throws: DecodingError.self) {
    try JSONValueDecoder().decode(type, from: value)
  }
}

@Suite("Decoding errors")
struct DecodingErrorTests {
  let catalog: JSONValue = [
    "items": [
      ["name": "a", "url": "u0"], ["name": "b", "url": "u1"], ["name": "c", "url": "u2"],
      ["name": "d", "url": 5],
    ]
  ]

  @Test func typeMismatchNamesKeyExpectedAndFound() throws {
    let error = try decodingError(Counter.self, from: ["count": "a"])
    guard case .typeMismatch(let type, let context) = error else {
      Issue.record("expected typeMismatch, got \(error)")
      return
    }
    #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
    #expect(context.codingPath.map(\.stringValue) == ["count"])
    #expect(context.debugDescription == #"expected an integer for "count", found string "a""#)
    #expect(
      describeDecodingError(error) == #"count: expected an integer for "count", found string "a""#)
  }

  @Test func pathThroughArraysUsesIndexNotation() throws {
    let error = try decodingError(Catalog.self, from: catalog)
    #expect(
      describeDecodingError(error) == #"items[3].url: expected a string for "url", found number 5"#)
  }

  @Test func missingKeyIncludesTheKeyInThePath() throws {
    let error = try decodingError(Catalog.self, from: ["items": [["name": "a"]]])
    guard case .keyNotFound(let key, let context) = error else {
      Issue.record("expected keyNotFound, got \(error)")
      return
    }
    #expect(key.stringValue == "url")
    #expect(context.debugDescription == #"missing key "url""#)
    #expect(describeDecodingError(error) == #"items[0].url: missing key "url""#)
  }

  @Test func nullForNonOptionalIsValueNotFound() throws {
    let error = try decodingError(Counter.self, from: ["count": nil])
    guard case .valueNotFound = error else {
      Issue.record("expected valueNotFound, got \(error)")
      return
    }
    #expect(describeDecodingError(error) == #"count: expected an integer for "count", found null"#)
  }

  static let narrowCases: [(JSONValue, String)] = [
    (.number(.int(300)), #"small: number 300 for "small" does not fit in UInt8"#),
    (.number(.int(-1)), #"small: number -1 for "small" does not fit in UInt8"#),
    (.number(.double(1e19)), #"small: number 1e+19 for "small" does not fit in UInt8"#),
    (.number(.double(1.5)), #"small: expected an integer for "small", found number 1.5"#),
    (.bool(true), #"small: expected an integer for "small", found boolean true"#),
    (.array([1, 2]), #"small: expected an integer for "small", found an array of 2 elements"#),
    (.object([:]), #"small: expected an integer for "small", found an object with 0 members"#),
  ]

  @Test(arguments: narrowCases)
  func integerRangeAndTypeChecks(found: JSONValue, message: String) throws {
    let error = try decodingError(Narrow.self, from: ["small": found])
    #expect(describeDecodingError(error) == message)
  }

  @Test func int64RejectsValuesBeyondItsRange() throws {
    let error = try decodingError([Int64].self, from: [.number(.double(1e19))])
    #expect(describeDecodingError(error) == "[0]: number 1e+19 for index 0 does not fit in Int64")
  }

  @Test func floatRejectsDoublesBeyondItsRange() throws {
    let error = try decodingError([Float].self, from: [1, .number(.double(1e39))])
    #expect(describeDecodingError(error) == "[1]: number 1e+39 for index 1 does not fit in Float")
  }

  @Test func topLevelErrorsHaveNoPath() throws {
    let error = try decodingError(Int.self, from: "x")
    #expect(describeDecodingError(error) == #"expected an integer, found string "x""#)
  }

  @Test func containerKindMismatchIsReported() throws {
    let keyed = try decodingError(Counter.self, from: [1])
    #expect(describeDecodingError(keyed) == "expected an object, found an array of 1 elements")
    let unkeyed = try decodingError([Int].self, from: ["a": 1])
    #expect(describeDecodingError(unkeyed) == "expected an array, found an object with 1 members")
  }

  @Test func readingPastTheEndOfAnArrayIsValueNotFound() throws {
    let error = try decodingError(Triple.self, from: [1, 2])
    guard case .valueNotFound = error else {
      Issue.record("expected valueNotFound, got \(error)")
      return
    }
    #expect(
      describeDecodingError(error)
        == "[2]: expected a value at index 2, but the array has only 2 elements")
  }

  @Test func longStringsAreTruncatedInMessages() throws {
    let error = try decodingError(
      Counter.self, from: ["count": .string(String(repeating: "x", count: 100))])
    #expect(
      describeDecodingError(error).hasSuffix(
        #"found string ""# + String(repeating: "x", count: 40) + #"...""#))
  }

  @Test func describesFoundationDecodingErrorsToo() {
    let data = Data(#"{"items":[{"name":"a","url":"u"},{"name":"b","url":7}]}"#.utf8)
    let error = #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Catalog.self, from: data)
    }
    #expect(error.map(describeDecodingError)?.hasPrefix("items[1].url: ") == true)
  }

  @Test func describesOtherErrorsByTheirDescription() {
    let error = JSONParseError(message: "trailing comma before ']'", offset: 4)
    #expect(describeDecodingError(error) == "invalid JSON at byte 4: trailing comma before ']'")
  }
}
