import CounterFeature
import FeatureABI
import FeatureJSON
import Foundation
import LevelsFeature
import Testing

@testable import FeatureKit

/// The counter with its state left to Codable: a test module gets no generated code.
struct CodableCounter: Feature {
  struct State: Codable, Equatable, Sendable {
    var count = 0, clicks = 0
  }
  enum Action: Codable, Sendable, Equatable { case increment }
  static let manifest = CounterFeature.manifest
  init(config: FeatureConfig) throws {}
  init() {}
  func initialState() -> State { State() }
  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
  func render(_ state: State) -> [String] { [] }
  func validate(_ state: State) throws {
    // The counter's own rule, so both refuse the same states.
    try CounterFeature().validate(CounterFeature.State(count: state.count, clicks: state.clicks))
  }
}

/// A state of every kind of member the reader reads, twice: `ReadProfile` with the conformance as
/// the build plugin writes it (ActionCodegenTests checks that text), `Profile` left to Codable.
struct Profile: Feature {
  struct State: Codable, Equatable, Sendable {
    var age: Int?
    var name: String
    var nick: String?
    var on: Bool
    var seen: Bool?
  }
  enum Action: Codable, Sendable, Equatable { case go }
  static let manifest = Manifest(id: "profile", name: "Profile", version: "1", description: "")
  init(config: FeatureConfig) throws {}
  init() {}
  func initialState() -> State { State(age: nil, name: "", nick: nil, on: false, seen: nil) }
  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
  func render(_ state: State) -> [String] { [] }
}

struct ReadProfile: Feature {
  struct State: Codable, Equatable, Sendable, FlatStateDecodable {
    var age: Int?
    var name: String
    var nick: String?
    var on: Bool
    var seen: Bool?
    init() { (age, name, nick, on, seen) = (nil, "", nil, false, nil) }
    init?(flatState members: StateMembers) {
      guard members.hasOnly("age", "name", "nick", "on", "seen") else { return nil }
      guard let m0 = members.optional("age", as: Int.self) else { return nil }
      guard let m1 = members.value("name", as: String.self) else { return nil }
      guard let m2 = members.optional("nick", as: String.self) else { return nil }
      guard let m3 = members.value("on", as: Bool.self) else { return nil }
      guard let m4 = members.optional("seen", as: Bool.self) else { return nil }
      self.age = m0
      self.name = m1
      self.nick = m2
      self.on = m3
      self.seen = m4
    }
  }
  typealias Action = Profile.Action
  static let manifest = Profile.manifest
  init(config: FeatureConfig) throws {}
  init() {}
  func initialState() -> State { State() }
  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
  func render(_ state: State) -> [String] { [] }
}

/// The build plugin's state readers: a restore through one answers as Codable's would.
@Suite("Generated state readers")
struct GeneratedStateReaderTests {
  static func instance<F: Feature>(_ feature: F) -> FeatureInstance<F> {
    var host = RecordingHost.host()
    return FeatureInstance(feature: feature, host: withUnsafePointer(to: &host) { HostConnection($0) })
  }

  /// What a restore of `json` answers: the state snapshot after it, or the error.
  static func restore(_ json: String, into instance: AnyFeatureInstance) -> String {
    let status = json.withCString { instance.restore($0) }
    guard status == FH_OK else { return "refused \(status): " + String(cString: instance.lastError.value!) }
    var out: UnsafePointer<CChar>?
    #expect(instance.snapshot(&out) == FH_OK)
    return String(cString: out!)
  }

  static let documents = [
    #"{"clicks":3,"count":1}"#, #"{"count":-1,"clicks":5}"#, #" { "clicks" : 0 , "count" : 0 } "#,
    #"{"clicks":9,"count":-0}"#, #"{"clicks":3.0,"count":1}"#, #"{"clicks":3,"count":1,"extra":true}"#,
    #"{"clicks":3}"#, #"{"clicks":3,"count":null}"#, #"{"clicks":"3","count":1}"#, "{}",
    #"{"clicks":1,"count":5}"#, #"{"clicks":-1,"count":0}"#, #"{"clicks":99999999999999999999,"count":0}"#,
    #"{"clicks":999999999999999999,"count":0}"#, #"{"clicks":3,"count":1,"clicks":4}"#,
    #"{"clicks":3,"count":{"n":1}}"#, #"{"type":"x","clicks":1,"count":1}"#, #"{"clicks":3,"count":1"#, "[]",
  ]

  @Test("a restore of the counter's state answers as Codable's", arguments: documents)
  func counterRestoresAsCodable(_ json: String) {
    let generated = Self.instance(CounterFeature())
    #expect(generated.generatedRead != nil)
    let codable = Self.instance(CodableCounter())
    #expect(codable.generatedRead == nil)
    #expect(Self.restore(json, into: generated) == Self.restore(json, into: codable))
  }

  @Test(
    "a restore of optionals, strings and bools answers as Codable's",
    arguments: [
      #"{"name":"a","on":true}"#, #"{"age":3,"name":"a","nick":null,"on":false,"seen":true}"#,
      #"{"age":null,"name":"","on":true,"seen":false}"#, #"{"name":"a"}"#, #"{"name":null,"on":true}"#,
      #"{"age":"3","name":"a","on":true}"#, #"{"name":"a","on":1}"#, #"{"name":"a","nick":false,"on":true}"#,
      #"{"name":"a","on":true,"seen":"yes"}"#, #"{"age":2.0,"name":"a","on":true}"#,
      #"{"name":"caf\u00e9","on":true}"#, #"{"name":"a","on":true,"type":"x"}"#,
    ])
  func profileRestoresAsCodable(_ json: String) {
    let read = Self.instance(ReadProfile())
    #expect(read.generatedRead != nil)
    #expect(Self.restore(json, into: read) == Self.restore(json, into: Self.instance(Profile())))
  }

  @Test func aStateReadInPlaceIsTheOneRestored() {
    let counter = Self.instance(CounterFeature())
    #expect(Self.restore(#"{"count":-2 , "clicks":4}"#, into: counter) == #"{"clicks":4,"count":-2}"#)
    #expect(counter.state == CounterFeature.State(count: -2, clicks: 4))
    let levels = Self.instance(LevelsFeature())
    #expect(levels.generatedRead != nil)
    #expect(Self.restore(#"{"right":7,"left":-3}"#, into: levels) == #"{"left":-3,"right":7}"#)
    #expect(levels.state == LevelsFeature.State(left: -3, right: 7))
  }

  /// An optional is nil when missing or null; present, it must be its type.
  @Test func optionalsReadAsCodableReadsThem() throws {
    // The scan points into its document, so each document is kept for the test's length.
    var documents: [UnsafeMutablePointer<CChar>] = []
    defer { for document in documents { free(document) } }
    func members(_ json: String) throws -> StateMembers {
      documents.append(try #require(strdup(json)))
      return StateMembers(try #require(FlatActionScan(objectAt: documents.last!)))
    }
    #expect(try members("{}").optional("n", as: Int.self) == .some(nil))
    #expect(try members(#"{"n":null}"#).optional("n", as: Int.self) == .some(nil))
    #expect(try members(#"{"n":4}"#).optional("n", as: Int.self) == .some(4))
    #expect(try members(#"{"n":"4"}"#).optional("n", as: Int.self) == nil)
    #expect(try members(#"{"s":"a b"}"#).optional("s", as: String.self) == .some("a b"))
    #expect(try members(#"{"s":true}"#).optional("s", as: String.self) == nil)
    #expect(try members(#"{"b":false}"#).optional("b", as: Bool.self) == .some(false))
    #expect(try members(#"{"b":0}"#).value("b", as: Bool.self) == nil)
    #expect(try members(#"{"n":null}"#).value("n", as: Int.self) == nil)
    #expect(try members(#"{"a":1,"b":2}"#).hasOnly("a", "b", "c"))
    #expect(!(try members(#"{"a":1,"d":2}"#).hasOnly("a", "b", "c")))
  }
}
