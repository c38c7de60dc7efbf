import FeatureJSON
import Testing

@Suite("Parsing valid JSON")
struct JSONParserTests {
  @Test func parsesEveryKindOfValue() throws {
    let value = try parsed(
      #" { "a" : [ true , false , null , 1 , -2.5 , "s" ] , "b" : { } , "c" : [ ] } "#)
    #expect(value == ["a": [true, false, nil, 1, -2.5, "s"], "b": [:], "c": []])
  }

  @Test func parsingForMembersOnlyLeavesArraysOfScalarsEmptyAndKeepsTheRestInPlace() throws {
    let text = #"{"urls":["a","b",3],"rows":[1,null,{"a":[0,0]},2],"grid":[[1],[{"b":0}]],"n":5}"#
    let members = try Array(text.utf8).withUnsafeBytes { try JSONValue.parseMembers(bytes: $0) }
    #expect(members == ["urls": [], "rows": [nil, nil, ["a": []], 2], "grid": [[], [["b": 0]]], "n": 5])
    #expect(throws: JSONParseError.self) {
      try Array(#"{"urls":["a",]}"#.utf8).withUnsafeBytes { try JSONValue.parseMembers(bytes: $0) }
    }
  }

  @Test func acceptsAllFourWhitespaceCharacters() throws {
    #expect(try parsed(" \t\r\n[\t1\r,\n2 ]\n") == [1, 2])
  }

  @Test func acceptsScalarsAtTopLevel() throws {
    #expect(try parsed("42") == 42)
    #expect(try parsed(#""x""#) == "x")
    #expect(try parsed("null") == .null)
    #expect(try parsed("true") == true)
  }

  @Test func decodesEscapes() throws {
    let value = try parsed(#""q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u20AC""#)
    #expect(value == .string("q\" b\\ s/ \u{8}\u{C}\n\r\t A\u{E9}\u{20AC}"))
  }

  @Test func joinsSurrogatePairs() throws {
    #expect(try parsed(#""\uD83D\uDE00""#) == "\u{1F600}")
    #expect(try parsed(#""a\ud83d\ude00b""#) == "a\u{1F600}b")
  }

  @Test func keepsEscapedNul() throws {
    #expect(try parsed(#""a\u0000b""#).stringValue?.utf8.count == 3)
  }

  @Test func keepsRawNonASCII() throws {
    #expect(try parsed(#"{"clé":"日本語 😀"}"#) == ["clé": "日本語 😀"])
  }

  @Test func bytesAndCStringEntryPointsAgreeWithString() throws {
    let text = #"{"type":"set","left":3,"right":[9,"é"]}"#
    let expected = try parsed(text)
    let fromBytes = try Array(text.utf8).withUnsafeBytes { try JSONValue.parse(bytes: $0) }
    let fromCString = try text.withCString { try JSONValue.parse(utf8CString: $0) }
    #expect(fromBytes == expected)
    #expect(fromCString == expected)
  }

  @Test func bytesEntryPointStopsAtBufferEnd() throws {
    // Only the first 3 bytes are in the buffer; the rest must not be read.
    let bytes = Array("[1]garbage".utf8)
    let value = try bytes.withUnsafeBytes { buffer in
      try JSONValue.parse(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<3]))
    }
    #expect(value == [1])
  }

  @Test func acceptsNestingOf512() throws {
    let text = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    var value = try parsed(text)
    var depth = 0
    while case .array(let elements) = value, let first = elements.first {
      value = first
      depth += 1
    }
    #expect(depth == 511)
  }

  @Test func parsesLargeArraysAndObjects() throws {
    let members = (0..<1000).map { #""k\#($0)":[\#($0),{"v":"\#($0)"}]"# }
    let value = try parsed("{" + members.joined(separator: ",") + "}")
    #expect(value.objectValue?.count == 1000)
    #expect(value["k999"] == [999, ["v": "999"]])
  }
}

@Suite("Number edge cases")
struct JSONNumberParsingTests {
  @Test(arguments: [
    ("0", JSONNumber.int(0)),
    ("-0", .int(0)),
    ("7", .int(7)),
    ("-12", .int(-12)),
    ("9223372036854775807", .int(Int64.max)),
    ("-9223372036854775808", .int(Int64.min)),
    ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
    ("-9223372036854775809", .double(-9_223_372_036_854_775_809.0)),
    ("1.0", .double(1.0)),
    ("0.1", .double(0.1)),
    ("1e308", .double(1e308)),
    ("1E2", .double(100)),
    ("2e-3", .double(0.002)),
    ("-1.5E+10", .double(-1.5e10)),
    ("5e-324", .double(.leastNonzeroMagnitude)),
    ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
    ("1e-400", .double(0)),
  ])
  func parsesNumber(text: String, expected: JSONNumber) throws {
    #expect(try parsed(text) == .number(expected))
  }

  @Test func negativeZeroDoubleKeepsItsSign() throws {
    guard case .number(.double(let value)) = try parsed("-0.0") else {
      Issue.record("-0.0 did not parse as a double")
      return
    }
    #expect(value == 0)
    #expect(value.sign == .minus)
  }

  @Test func integersInsideStructuresStayExact() throws {
    #expect(try parsed("[9007199254740993]") == [.number(.int(9_007_199_254_740_993))])
  }
}
