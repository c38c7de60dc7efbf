import CounterFeature
import FeatureJSON
import Testing

@testable import FeatureKit

@Suite("Generated action decoding")
struct ActionDecodingTests {
  @Test func theBuildPluginGaveTheCounterItsDecoder() {
    // Found at run time, as an instance finds it.
    #expect(
      generatedDecoder(for: CounterFeature.Action.self)?("increment", payload(#"{"type":"increment"}"#)) == .increment)
  }

  /// The generated decoder must build exactly what Codable builds, on either input path.
  @Test(arguments: [#"{"type":"increment"}"#, #"{"type":"decrement"}"#, #"{ "type" : "increment" }"#])
  func buildsWhatCodableBuilds(_ json: String) throws {
    let codable = try JSONValueDecoder().decodeTagged(CounterFeature.Action.self, from: JSONValue.parse(json))
    let object = try #require(try json.withCString { try FlatObject.parse(utf8CString: $0) })
    let tag = try #require(object["type"]?.stringValue)
    #expect(CounterFeature.Action.decodeFlat(tag: tag, payload: ActionPayload(.object(object))) == codable)
    if let scan = json.withCString({ FlatActionScan(utf8CString: $0) }) {
      #expect(CounterFeature.Action.decodeFlat(tag: scan.tag, payload: ActionPayload(.scan(scan))) == codable)
    }
  }

  /// A member the case does not have: Codable would drop it, feature_abi.h refuses it, so the
  /// generated decoder declines and the general way names it.
  @Test(arguments: [#"{"type":"decrement","n":12}"#, #"{"n":1.5,"type":"increment"}"#])
  func anExtraMemberIsLeftToTheGeneralWay(_ json: String) throws {
    let object = try #require(try json.withCString { try FlatObject.parse(utf8CString: $0) })
    let tag = try #require(object["type"]?.stringValue)
    #expect(CounterFeature.Action.decodeFlat(tag: tag, payload: ActionPayload(.object(object))) == nil)
    if let scan = json.withCString({ FlatActionScan(utf8CString: $0) }) {
      #expect(CounterFeature.Action.decodeFlat(tag: scan.tag, payload: ActionPayload(.scan(scan))) == nil)
    }
  }

  @Test func anUnknownTagIsLeftToCodable() throws {
    let object = try #require(try #"{"type":"incremnt"}"#.withCString { try FlatObject.parse(utf8CString: $0) })
    #expect(CounterFeature.Action.decodeFlat(tag: "incremnt", payload: ActionPayload(.object(object))) == nil)
  }

  @Test func payloadReadsFollowCodable() throws {
    let object = try #require(
      try #"{"type":"t","i":3.0,"f":3.5,"s":"x","b":false,"o":null,"l":["a"]}"#.withCString {
        try FlatObject.parse(utf8CString: $0)
      })
    let payload = ActionPayload(.object(object))
    #expect(payload.value("i", as: Int.self) == 3)
    #expect(payload.value("f", as: Int.self) == nil)
    #expect(payload.value("f", as: Double.self) == 3.5)
    #expect(payload.value("s", as: String.self) == "x")
    #expect(payload.value("b", as: Bool.self) == false)
    #expect(payload.value("l", as: [String].self) == ["a"])
    #expect(payload.optional("o", as: Int.self) == .some(nil))
    #expect(payload.optional("missing", as: Int.self) == .some(nil))
    #expect(payload.optional("s", as: Int.self) == nil)
  }
}

@Suite("Change detection")
struct ChangeDetectionTests {
  struct Refusing: Feature {
    struct State: Codable, Equatable, Sendable { var values: [Int] }
    enum Action: Codable, Sendable {
      case append(Int)
      case keep
    }
    static let manifest = Manifest(id: "refusing", name: "Refusing", version: "1.0.0", description: "test", actions: [])
    init(config: FeatureConfig) {}
    init() {}
    func initialState() -> State { State(values: [1, 2]) }
    func render(_ state: State) -> [String] { [] }
    func reduce(into state: inout State, action: Action) throws -> Effect<Action> {
      switch action {
      case .append(let value):
        state.values.append(value)
        guard value >= 0 else { throw FeatureError("negative") }
      case .keep:
        break
      }
      return .none
    }
  }

  @Test func theDefaultComparesAndPutsBackWhatARefusedActionChanged() throws {
    let feature = Refusing()
    var state = feature.initialState()
    var changed = false
    _ = try feature.reduce(into: &state, action: .keep, changed: &changed)
    #expect(!changed)
    _ = try feature.reduce(into: &state, action: .append(3), changed: &changed)
    #expect(changed && state.values == [1, 2, 3])
    #expect(throws: FeatureError.self) { try feature.reduce(into: &state, action: .append(-1), changed: &changed) }
    #expect(state.values == [1, 2, 3])
  }
}

private func payload(_ json: String) -> ActionPayload {
  ActionPayload(.object(try! json.withCString { try FlatObject.parse(utf8CString: $0) }!))
}
