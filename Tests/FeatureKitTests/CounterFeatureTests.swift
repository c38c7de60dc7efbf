import CounterFeature
import FeatureJSON
import FeatureKit
import Testing

@Suite("Counter feature")
struct CounterFeatureTests {
  let feature = CounterFeature()

  @Test func incrementAndDecrementMoveCountAndAddClicks() {
    var state = feature.initialState()
    for action: CounterFeature.Action in [.increment, .increment, .decrement] {
      _ = feature.reduce(into: &state, action: action)
    }
    #expect(state == CounterFeature.State(count: 1, clicks: 3))
  }

  @Test func theLifecycleActionsAreLeftToFeatureKit() throws {
    // The counter does not model them, so they do not decode: FeatureKit handles them.
    for type in ["created", "restored"] {
      #expect(throws: (any Error).self) {
        try JSONValueDecoder().decodeTagged(
          CounterFeature.Action.self, from: try JSONValue.parse(#"{"type":"\#(type)"}"#))
      }
    }
  }

  @Test func actionsUseTheFlatTypeShape() throws {
    let json = try JSONValueEncoder().encodeTagged(CounterFeature.Action.increment).serialized()
    #expect(json == #"{"type":"increment"}"#)
    let decoded = try JSONValueDecoder().decodeTagged(
      CounterFeature.Action.self, from: try JSONValue.parse(#"{"type":"decrement"}"#))
    #expect(decoded == .decrement)
  }

  @Test func stateJSONIsDeterministic() throws {
    let json = try JSONValueEncoder().encode(CounterFeature.State(count: -2, clicks: 4)).serialized()
    #expect(json == #"{"clicks":4,"count":-2}"#)
  }

  @Test func unreachableStatesAreRefused() {
    #expect(throws: FeatureError.self) { try feature.validate(CounterFeature.State(count: 3, clicks: 2)) }
    #expect(throws: FeatureError.self) { try feature.validate(CounterFeature.State(count: 0, clicks: -1)) }
    #expect(throws: FeatureError.self) { try feature.validate(CounterFeature.State(count: Int.min, clicks: 0)) }
    #expect(throws: Never.self) { try feature.validate(CounterFeature.State(count: -2, clicks: 2)) }
  }

  @Test func theManifestListsTheTypedActions() {
    #expect(CounterFeature.manifest.id == "counter")
    #expect(CounterFeature.exportedManifest?.actions.map(\.type) == ["increment", "decrement"])
  }
}
