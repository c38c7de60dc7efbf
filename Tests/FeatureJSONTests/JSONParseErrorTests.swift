import FeatureJSON
import Testing

/// One rejected input with the exact error it must produce.
struct BadInput: Sendable, CustomTestStringConvertible {
  let id: String
  let bytes: [UInt8]
  let message: String
  let offset: Int

  init(_ id: String, _ text: String, _ message: String, at offset: Int) {
    self.init(id, bytes: Array(text.utf8), message, at: offset)
  }

  init(_ id: String, bytes: [UInt8], _ message: String, at offset: Int) {
    self.id = id
    self.bytes = bytes
    self.message = message
    self.offset = offset
  }

  var testDescription: String { id }
}

let quote = UInt8(ascii: "\"")

let badInputs: [BadInput] = [
  BadInput("empty input", "", "unexpected end of input, expected a JSON value", at: 0),
  BadInput("whitespace only", " \n", "unexpected end of input, expected a JSON value", at: 2),
  BadInput("trailing comma in array", "[1,2,]", "trailing comma before ']'", at: 4),
  BadInput("trailing comma in object", #"{"a":1,}"#, "trailing comma before '}'", at: 6),
  BadInput("leading zero", "01", "leading zeros are not allowed in numbers", at: 0),
  BadInput("negative leading zero", "[-012]", "leading zeros are not allowed in numbers", at: 1),
  BadInput("bad escape", #""\x""#, #"invalid escape '\x' in string"#, at: 1),
  BadInput(
    "escape of control byte", "\"\\\u{1}\"", "invalid escape backslash followed by 0x01 in string",
    at: 1),
  BadInput("short unicode escape", #""\u12""#, #"invalid \u escape, expected 4 hex digits"#, at: 1),
  BadInput("lone high surrogate", #""\uD800""#, #"lone UTF-16 surrogate \uD800 in string"#, at: 1),
  BadInput("lone low surrogate", #""a\uDC00""#, #"lone UTF-16 surrogate \uDC00 in string"#, at: 2),
  BadInput(
    "high surrogate then non-surrogate", #""\uD83D\u0041""#,
    #"lone UTF-16 surrogate \uD83D in string"#, at: 1),
  BadInput(
    "invalid UTF-8 byte", bytes: [quote, 0xFF, quote],
    "invalid UTF-8 sequence starting with byte 0xFF in string", at: 1),
  BadInput(
    "overlong UTF-8", bytes: [quote, 0x61, 0xC0, 0xAF, quote],
    "invalid UTF-8 sequence starting with byte 0xC0 in string", at: 2),
  BadInput(
    "UTF-8 encoded surrogate", bytes: [quote, 0xED, 0xA0, 0x80, quote],
    "invalid UTF-8 sequence starting with byte 0xED in string", at: 1),
  BadInput(
    "truncated UTF-8", bytes: [quote, 0xE2, 0x82, quote],
    "invalid UTF-8 sequence starting with byte 0xE2 in string", at: 1),
  BadInput(
    "UTF-8 above U+10FFFF", bytes: [quote, 0xF4, 0x90, 0x80, 0x80, quote],
    "invalid UTF-8 sequence starting with byte 0xF4 in string", at: 1),
  BadInput(
    "byte order mark", bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],
    "unexpected byte 0xEF, expected a JSON value", at: 0),
  BadInput(
    "control character in string", "\"a\nb\"", "unescaped control character 0x0A in string",
    at: 2),
  BadInput(
    "NUL byte in string", bytes: [quote, 0x00, quote],
    "unescaped control character 0x00 in string", at: 1),
  BadInput("duplicate key", #"{"a":1,"a":2}"#, #"duplicate key "a" in object"#, at: 7),
  BadInput(
    "duplicate key in nested object", #"[{"b":{"x":1,"y":2,"x":3}}]"#,
    #"duplicate key "x" in object"#, at: 19),
  BadInput(
    "depth 513", String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
    "nesting deeper than 512 arrays/objects", at: 512),
  BadInput("trailing garbage", "{} x", "unexpected 'x' after the top-level value", at: 3),
  BadInput("two values", "1 2", "unexpected '2' after the top-level value", at: 2),
  BadInput("NaN", "NaN", "NaN and Infinity are not valid JSON", at: 0),
  BadInput("Infinity in array", "[Infinity]", "NaN and Infinity are not valid JSON", at: 1),
  BadInput("negative Infinity", "-Infinity", "NaN and Infinity are not valid JSON", at: 0),
  BadInput("missing colon", #"{"a" 1}"#, "expected ':' after object key", at: 5),
  BadInput(
    "missing comma in object", #"{"a":1 "b":2}"#, "expected ',' or '}' after object member",
    at: 7),
  BadInput("missing comma in array", "[1 2]", "expected ',' or ']' after array element", at: 3),
  BadInput("single-quoted key", "{'a':1}", #"expected '"' to start an object key"#, at: 1),
  BadInput("unterminated string", #""abc"#, "unterminated string", at: 0),
  BadInput(
    "unterminated object", #"{"a":1"#,
    "unexpected end of input, expected ',' or '}' after object member", at: 6),
  BadInput(
    "unterminated array", "[1,", "unexpected end of input, expected a JSON value", at: 3),
  BadInput("digit missing after dot", "1.e5", "expected a digit after '.'", at: 2),
  BadInput(
    "input ends after dot", "1.", "unexpected end of input, expected a digit after '.'", at: 2),
  BadInput(
    "empty exponent", "1e", "unexpected end of input, expected a digit in the exponent", at: 2),
  BadInput("lone minus", "-", "unexpected end of input, expected a digit after '-'", at: 1),
  BadInput("leading plus", "+1", "unexpected '+', expected a JSON value", at: 0),
  BadInput("leading dot", ".5", "unexpected '.', expected a JSON value", at: 0),
  BadInput("number out of range", "[1e400]", "number 1e400 is out of range", at: 1),
  BadInput("truncated literal", "tru", "invalid literal, expected 'true'", at: 0),
  BadInput("misspelled literal", "[nul]", "invalid literal, expected 'null'", at: 1),
  BadInput("capitalised literal", "True", "unexpected 'T', expected a JSON value", at: 0),
]

@Suite("Rejecting invalid JSON")
struct JSONParseErrorTests {
  @Test(arguments: badInputs)
  func rejects(_ input: BadInput) throws {
    let error = try #require(parseError(input.bytes), "input was accepted")
    #expect(error.message == input.message)
    #expect(error.offset == input.offset)
  }

  @Test func descriptionNamesByteAndReason() {
    let error = parseError(Array(#"{"a":1 "b":2}"#.utf8))
    #expect(
      error?.description == "invalid JSON at byte 7: expected ',' or '}' after object member")
  }

  @Test func stringAndCStringEntryPointsReportTheSameError() {
    let text = #"{"type":"set","type":1}"#
    #expect(throws: JSONParseError(message: #"duplicate key "type" in object"#, offset: 14)) {
      try JSONValue.parse(text)
    }
    #expect(throws: JSONParseError(message: #"duplicate key "type" in object"#, offset: 14)) {
      try text.withCString { try JSONValue.parse(utf8CString: $0) }
    }
  }

  @Test func emptyBufferWithoutBaseAddressIsEmptyInput() {
    #expect(
      throws: JSONParseError(message: "unexpected end of input, expected a JSON value", offset: 0)
    ) {
      try JSONValue.parse(bytes: UnsafeRawBufferPointer(start: nil, count: 0))
    }
  }
}
