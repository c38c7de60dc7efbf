import FeatureJSON
import FeatureManifest
import Testing

/// The host reads a plugin's manifest JSON with `Manifest(json:)`; an author's manifest written
/// with `json` reads back equal.
@Suite("Manifest checks")
struct ManifestDecodingTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let id: String
    let json: String
    let message: String
    var testDescription: String { id }
  }

  static let cases: [Case] = [
    Case(id: "not-json", json: "{", message: "manifest is not valid JSON"),
    Case(id: "not-object", json: "[]", message: "manifest must be a JSON object"),
    Case(id: "no-id", json: #"{"name":"a","version":"1","actions":[]}"#, message: "manifest has no id"),
    Case(
      id: "empty-name", json: #"{"id":"a","name":"","version":"1","actions":[]}"#,
      message: "name must be a non-empty string"),
    Case(
      id: "bad-id", json: #"{"id":"A b","name":"a","version":"1","actions":[]}"#,
      message: "manifest id 'A b' may only hold"),
    Case(id: "no-actions", json: #"{"id":"a","name":"a","version":"1"}"#, message: "manifest has no array 'actions'"),
    Case(
      id: "lifecycle-listed", json: #"{"id":"a","name":"a","version":"1","actions":[{"type":"created"}]}"#,
      message: "actions[0].type 'created' is a lifecycle action"),
    Case(
      id: "duplicate-action",
      json: #"{"id":"a","name":"a","version":"1","actions":[{"type":"x"},{"type":"x"}]}"#,
      message: "manifest lists action 'x' twice"),
    Case(
      id: "argument-named-type",
      json: #"{"id":"a","name":"a","version":"1","actions":[{"type":"x","arguments":[{"name":"type"}]}]}"#,
      message: "manifest action 'x' has an argument named 'type'"),
    Case(
      id: "step-not-object", json: #"{"id":"a","name":"a","version":"1","actions":[],"steps":["go"]}"#,
      message: "manifest steps[0] must be an object"),
    Case(
      id: "bad-argument-type",
      json: #"{"id":"a","name":"a","version":"1","actions":[{"type":"x","arguments":[{"name":"n","type":"float"}]}]}"#,
      message: "actions[0].arguments[0].type 'float' is not one of"),
  ]

  @Test("a bad manifest is refused naming the field", arguments: cases)
  func badManifest(_ bad: Case) {
    let error = #expect(throws: ManifestError.self) { try Manifest(json: bad.json) }
    #expect(error?.message.contains(bad.message) == true, "\(error?.message ?? "no error")")
  }

  @Test func argumentsDefaultToRequired() throws {
    let manifest = try Manifest(
      json: #"{"id":"a","name":"A","version":"1","actions":[{"type":"x","arguments":[{"name":"n","type":"integer"}]}]}"#
    )
    #expect(manifest.action(named: "x")?.arguments.first?.required == true)
    #expect(manifest.description == "")
  }

  @Test func anAuthorsManifestReadsBackEqualFromItsJSON() throws {
    // given a manifest with every argument kind, an optional argument and a step
    let written = Manifest(
      id: "levels", name: "Levels", version: "1.2.0", description: "two levels",
      actions: [
        ActionSpec("increment", help: "add one"),
        ActionSpec(
          "set", help: "set both",
          arguments: ArgumentSpec.Kind.allCases.map { ArgumentSpec($0.rawValue + "Value", $0, help: "a \($0)") }
            + [ArgumentSpec("label", .string, help: "", required: false)]),
      ],
      steps: [StepSpec("done", help: "finished")])
    // when its JSON is read as the host reads it
    let read = try Manifest(json: written.json.serialized())
    // then nothing is lost, the step included
    #expect(read == written)
    #expect(read.steps == [StepSpec("done", help: "finished")])
    #expect(read.action(named: "set")?.arguments.last?.required == false)
  }
}
