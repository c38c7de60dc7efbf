import HostKit
import Testing

@Suite("Typed action lines")
struct ActionLineTests {
  static let manifest = try! Manifest(
    json: """
      {"id":"levels","name":"Levels","version":"1.0.0","description":"",
       "actions":[{"type":"increment","help":"","arguments":[]},
                  {"type":"set","help":"","arguments":[
                     {"name":"left","type":"integer","help":"the left level"},
                     {"name":"right","type":"integer","help":""},
                     {"name":"label","type":"string","help":"","required":false},
                     {"name":"fast","type":"boolean","help":"","required":false},
                     {"name":"rate","type":"number","help":"","required":false}]}]}
      """)

  static let good: [TextCase] = [
    TextCase(id: "bare", text: "increment", expected: #"{"type":"increment"}"#),
    TextCase(id: "spaces-around", text: "  increment \t", expected: #"{"type":"increment"}"#),
    TextCase(id: "integers", text: "set left=3 right=-9", expected: #"{"left":3,"right":-9,"type":"set"}"#),
    TextCase(
      id: "quoted-string", text: #"set left=1 right=2 label="two words""#,
      expected: #"{"label":"two words","left":1,"right":2,"type":"set"}"#),
    TextCase(
      id: "boolean-and-number", text: "set left=1 right=2 fast=yes rate=0.5",
      expected: #"{"fast":true,"left":1,"rate":0.5,"right":2,"type":"set"}"#),
    TextCase(id: "raw-json", text: #"{"type": "anything", "x": [1]}"#, expected: #"{"type":"anything","x":[1]}"#),
  ]

  @Test("a good line becomes the action JSON", arguments: good)
  func goodLine(_ good: TextCase) throws {
    #expect(try ActionLine.parse(good.text, manifest: Self.manifest) == good.expected)
  }

  struct Bad: CustomTestStringConvertible, Sendable {
    let id: String
    let line: String
    let message: String
    let help: String?
    var testDescription: String { id }
  }

  static let bad: [Bad] = [
    Bad(
      id: "typo", line: "incremnt", message: "unknown action 'incremnt' for levels", help: "did you mean 'increment'?"),
    Bad(id: "lifecycle", line: "created", message: "'created' is a lifecycle action only the host sends", help: nil),
    Bad(
      id: "unknown-argument", line: "set lft=1 right=2", message: "'set' has no argument 'lft'",
      help: "did you mean 'left'?"),
    Bad(
      id: "not-an-integer", line: "set left=abc right=2", message: "argument left='abc' of 'set' must be an integer",
      help: "left: the left level"),
    Bad(id: "missing", line: "set left=1", message: "'set' needs right=<integer>", help: "usage: set left=<integer>"),
    Bad(id: "twice", line: "set left=1 left=2 right=3", message: "argument 'left' is given twice", help: nil),
    Bad(id: "no-equals", line: "set 3", message: "expected name=value after 'set', got '3'", help: nil),
    Bad(id: "unterminated-quote", line: #"set label="x"#, message: "unterminated \"", help: nil),
    Bad(id: "raw-json-invalid", line: #"{"type":}"#, message: "invalid JSON at byte", help: nil),
    Bad(id: "raw-json-no-type", line: #"{"kind":"x"}"#, message: #"a raw action needs a string "type""#, help: nil),
    Bad(
      id: "raw-json-lifecycle", line: #"{"type":"restored"}"#, message: "'restored' is a lifecycle action", help: nil),
  ]

  @Test("a bad line is refused with a message naming the offending value", arguments: bad)
  func badLine(_ bad: Bad) {
    let error = #expect(throws: HostError.self) { try ActionLine.parse(bad.line, manifest: Self.manifest) }
    #expect(error?.message.contains(bad.message) == true, "\(error?.message ?? "no error")")
    if let help = bad.help { #expect(error?.help?.contains(help) == true, "\(error?.help ?? "no help")") }
  }

  @Test func suggestionsFindTyposButNotUnrelatedWords() {
    #expect(Suggestion.closest(to: "decremnet", in: ["increment", "decrement"]) == "decrement")
    #expect(Suggestion.closest(to: "zzz", in: ["increment", "decrement"]) == nil)
  }
}
