import FeatureJSON
import Testing

/// Checks raw bytes without building them and returns the error, or `nil` when accepted.
func validationError(_ bytes: [UInt8]) -> JSONParseError? {
  do {
    try bytes.withUnsafeBytes { buffer in try JSONValue.validate(bytes: buffer) }
    return nil
  } catch let error as JSONParseError {
    return error
  } catch {
    return JSONParseError(message: "unexpected error type: \(error)", offset: -1)
  }
}

@Suite("Checking JSON without building it")
struct JSONValidationTests {
  @Test(arguments: badInputs)
  func refusesWhatTheParserRefusesWithItsError(_ input: BadInput) throws {
    let error = try #require(validationError(input.bytes), "input was accepted")
    #expect(error == parseError(input.bytes))
    #expect(error.message == input.message)
    #expect(error.offset == input.offset)
  }

  @Test(arguments: [
    "{}", "[]", "0", "-0.5e+3", "true", "null", #""a\n\u00e9\uD83D\uDE00""#, #"{"a":[1,{"b":null}],"c":"d"}"#,
    " [ 1 , 2 ]\n", String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
  ])
  func acceptsWhatTheParserAccepts(_ text: String) {
    #expect(parseError(Array(text.utf8)) == nil)
    #expect(validationError(Array(text.utf8)) == nil)
  }

  /// Keys are compared one by one up to 16, then in a set: a duplicate is found either way,
  /// including one with escapes that reads the same.
  @Test(arguments: [3, 15, 16, 17, 40])
  func findsADuplicateKeyAmongMany(_ count: Int) throws {
    let members = (0..<count).map { #""k\#($0)":\#($0)"# }
    let text = "{" + (members + [#""k\u0030":0"#]).joined(separator: ",") + "}"
    let error = try #require(validationError(Array(text.utf8)))
    #expect(error == parseError(Array(text.utf8)))
    #expect(error.message == #"duplicate key "k0" in object"#)
  }

  @Test func aBadValueIsReportedBeforeADuplicateKeyAsByTheParser() throws {
    let bytes = Array(#"{"a":1,"a":tru}"#.utf8)
    let error = try #require(validationError(bytes))
    #expect(error == parseError(bytes))
    #expect(error.message == "invalid literal, expected 'true'")
  }

  @Test func aStringIsCheckedAsText() throws {
    #expect(throws: JSONParseError(message: "unterminated string", offset: 6)) {
      try JSONValue.validate(#"{"a":[""#)
    }
    try JSONValue.validate(#"{"urls":["https://cdn2.thecatapi.com/images/a.jpg"]}"#)
  }

  /// What an emitted action's check needs of a member, found while checking the whole text.
  @Test(arguments: [
    (#"{"type":"tick"}"#, JSONValue.MemberCheck.string),
    (#" { "n" : [1, {"type": 2}], "type" : "tick" } "#, .string),
    (#"{"type":3}"#, .notAString),
    (#"{"type":null}"#, .notAString),
    (#"{"type":{"type":"x"}}"#, .notAString),
    (#"{"kind":"tick","inner":{"type":"x"}}"#, .missing),
    ("{}", .missing),
    (#"[{"type":"tick"}]"#, .notAnObject),
    (#""type""#, .notAnObject),
  ])
  func saysWhetherAMemberIsAString(_ text: String, _ expected: JSONValue.MemberCheck) throws {
    #expect(try JSONValue.validate(text, member: "type") == expected)
  }

  /// The text is checked whole first: a bad document or a duplicate key throws as the parser does.
  @Test(arguments: [#"{"type":"tick",}"#, #"{"type":"a","type":"b"}"#, #"{"type":"tick"} x"#, ""])
  func aMemberIsLookedForOnlyInValidJSON(_ text: String) {
    let error = #expect(throws: JSONParseError.self) { try JSONValue.validate(text, member: "type") }
    #expect(error == parseError(Array(text.utf8)))
  }
}
