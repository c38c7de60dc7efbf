import FeatureJSON
import FeatureTesting
import HostKit
import Testing

/// The pure parts of the conformance suite, in process: samples, bad inputs, view rules, the
/// verdict lines a check process writes.
@Suite("conformance suite parts")
struct ConformancePartsTests {
  static let manifest: Manifest = {
    let json = """
      {"id":"t","name":"T","version":"1","actions":[
        {"type":"setTarget","help":"h","arguments":[{"name":"celsius","type":"integer","help":"5 to 35"}]},
        {"type":"setMode","help":"h","arguments":[{"name":"mode","type":"string","help":"off, heat or cool"}]},
        {"type":"nudge","help":"h","arguments":[{"name":"by","type":"number","help":"","required":false}]},
        {"type":"warmer","help":"h"}]}
      """
    do { return try Manifest(json: json) } catch { fatalError("the test manifest is valid: \(error)") }
  }()

  static func action(_ type: String) -> ActionSpec {
    guard let action = manifest.action(named: type) else { fatalError("no action \(type)") }
    return action
  }

  @Test func samplesTryTypicalValuesThenTheNumbersAndWordsOfTheHelp() {
    #expect(ActionSamples.values(for: Self.action("setTarget").arguments[0]) == [1, 0, 2, -1, 10, 5, 35])
    #expect(
      ActionSamples.values(for: Self.action("setMode").arguments[0]) == ["sample", "a", "off", "heat", "or", "cool"])
  }

  @Test func candidatesStartWithTheRequiredArgumentsOnly() {
    #expect(ActionSamples.candidates(for: Self.action("warmer")) == [#"{"type":"warmer"}"#])
    let nudge = ActionSamples.candidates(for: Self.action("nudge"))
    #expect(nudge.first == #"{"type":"nudge"}"#)
    #expect(nudge.dropFirst().first == #"{"by":1,"type":"nudge"}"#)
    #expect(ActionSamples.candidates(for: Self.action("setTarget")).contains(#"{"celsius":5,"type":"setTarget"}"#))
  }

  struct NumbersCase: CustomTestStringConvertible, Sendable {
    let id: String
    let text: String
    let numbers: [Double]
    var testDescription: String { id }
  }

  static let numbersCases: [NumbersCase] = [
    NumbersCase(id: "range-in-words", text: "the left level (-1000000 to 1000000)", numbers: [-1_000_000, 1_000_000]),
    NumbersCase(id: "dotted-range", text: "within 1...100, default 10.", numbers: [1, 100, 10]),
    NumbersCase(id: "fraction", text: "about 0.5 seconds", numbers: [0.5]),
    NumbersCase(id: "hyphenated-word", text: "a well-known value", numbers: []),
  ]

  @Test(arguments: numbersCases)
  func numbersAreReadFromHelpText(_ example: NumbersCase) {
    #expect(ActionSamples.numbers(in: example.text) == example.numbers)
  }

  @Test func badActionsAreNeverValidActions() throws {
    let catalogue = Self.manifest.actions
    let inputs = BadInputs.actions(catalogue: catalogue)
    #expect(Set(inputs.map(\.id)).count == inputs.count, "ids are unique")
    let types = Set(catalogue.map(\.type)).union(Manifest.lifecycleTypes)
    for input in inputs where input.id.hasPrefix("random-") {
      let text = try #require(String(validating: input.bytes, as: UTF8.self))
      let value = try JSONValue.parse(text)
      if let type = value["type"]?.stringValue { #expect(!types.contains(type), "\(input.id): \(text)") }
    }
    let oversized = inputs.filter { $0.id.hasPrefix("oversized-") }
    #expect(oversized.count == 4)
    #expect(oversized.allSatisfy { $0.bytes.count >= BadInputs.oversizedBytes })
    #expect(inputs.contains { $0.id == "setTarget.celsius-overflow" })
    #expect(inputs.contains { $0.id == "setMode.mode-wrong-kind" })
    #expect(!inputs.contains { $0.id == "nudge.by-missing" }, "an optional argument may be left out")
  }

  @Test func randomActionsAreTheSameForTheSameSeed() {
    var one = RandomJSON(seed: 7)
    var two = RandomJSON(seed: 7)
    let first = (0..<20).map { _ in one.action(avoiding: []) }
    #expect(first == (0..<20).map { _ in two.action(avoiding: []) })
    #expect(Set(first).count > 10)
  }

  @Test func badStatesAreBuiltAroundTheValidSnapshot() {
    let states = BadInputs.states(validSnapshot: Array(#"{"mode":"off","target":20}"#.utf8))
    let byId = Dictionary(states.map { ($0.id, String(decoding: $0.bytes, as: UTF8.self)) }) { first, _ in first }
    #expect(byId["truncated"] == #"{"mode":"off","target":20"#)
    #expect(byId["wrong-member-types"] == #"{"mode":[[["?"]]],"target":[[["?"]]]}"#)
  }

  struct ViewCase: CustomTestStringConvertible, Sendable {
    let id: String
    let view: [UInt8]
    let problem: String?
    var testDescription: String { id }
  }

  static let viewCases: [ViewCase] = [
    ViewCase(id: "plain-lines", view: Array("Counter\n  count: 1\ttab".utf8), problem: nil),
    ViewCase(id: "unicode", view: Array("Levels — settled ████ 23 °C".utf8), problem: nil),
    ViewCase(
      id: "escape-sequence", view: Array("Tally\n\u{1B}[1mbold".utf8),
      problem: #"holds the control character U+001B at line 2, column 1: '\x1B[1mbold'"#),
    ViewCase(
      id: "carriage-return", view: Array("a\r\nb".utf8),
      problem: #"holds the control character U+000D at line 1, column 2: 'a\r\nb'"#),
    ViewCase(
      id: "one-byte-csi", view: Array("x\u{9B}1m".utf8),
      problem: #"holds the control character U+009B at line 1, column 2: 'x\x9B1m'"#),
    ViewCase(id: "not-utf8", view: [0x61, 0xFF], problem: #"is not valid UTF-8: 'a\xFF'"#),
  ]

  @Test(arguments: viewCases)
  func viewsMustBePlainText(_ example: ViewCase) {
    #expect(ConformanceSuite.viewProblem(example.view) == example.problem)
  }

  @Test func verdictLinesRoundTripOnOneLine() {
    let lines: [VerdictLine] = [.step("dispatch 'empty'"), .verdict(.pass), .verdict(.fail("two\nlines"))]
    for line in lines {
      #expect(!line.text.contains("\n"))
      #expect(VerdictLine(parsing: Substring(line.text)) != nil)
    }
    #expect(VerdictLine(parsing: "fail a b") == .verdict(.fail("a b")))
    #expect(VerdictLine(parsing: "printed by a plugin") == nil)
    #expect(ConformanceVerdict.fail("why").reportLine(for: .render) == "fail  render  why")
  }

  @Test func longValuesAreQuotedShort() {
    let quoted = ConformanceText.quote(String(repeating: "a", count: 1000), limit: 5)
    #expect(quoted == "'aaaaa...' (1000 bytes)")
  }

  @Test func aWellBehavedPluginPassesInProcess() {
    // The suite runs in-process too; host validate only adds the child processes.
    let verdict = ConformanceSuite.run(.lifecycle, plugin: PluginPaths.library("Counter"))
    #expect(verdict == .pass)
  }
}
