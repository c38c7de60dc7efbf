import CounterFeature
import FeatureJSON
import HomeFeature
import KittensFeature
import LevelsFeature
import Testing

@testable import FeatureKit

/// The catalogues the build plugin derives from the shipped features' `Action` enums are the ones
/// their manifests listed by hand before (copied here as they were), so `:help`, completion,
/// did-you-mean and validate's samples are unchanged.
@Suite("Derived catalogue")
struct DerivedCatalogueTests {
  static let handWritten: [String: [ActionSpec]] = [
    "counter": [
      ActionSpec("increment", help: "Add one to the count."),
      ActionSpec("decrement", help: "Take one from the count."),
    ],
    "levels": [
      ActionSpec(
        "set", help: "Start a new regulation from these levels.",
        arguments: [
          ArgumentSpec("left", .integer, help: "the left level (-2000 to 2000)"),
          ArgumentSpec("right", .integer, help: "the right level (-2000 to 2000)"),
        ])
    ],
    "kittens": [
      ActionSpec("refresh", help: "Load the first page again and replace the list (restarts a load in flight)."),
      ActionSpec("loadMore", help: "Load the next page and append it (ignored while loading or at the end)."),
    ],
    "home": [
      ActionSpec(
        "pick", help: "Open an entry of the menu.",
        arguments: [ArgumentSpec("entry", .string, help: "its number in the list (1, 2, ...) or its id")])
    ],
  ]

  static func exported<F: Feature>(_ feature: F.Type) throws -> Manifest {
    try #require(F.exportedManifest)
  }

  /// The manifest as written (no `actions:`) and as exported, for the shipped feature `id`.
  static func manifests(_ id: String) throws -> (written: Manifest, exported: Manifest) {
    switch id {
    case "counter": (CounterFeature.manifest, try exported(CounterFeature.self))
    case "levels": (LevelsFeature.manifest, try exported(LevelsFeature.self))
    case "kittens": (KittensFeature.manifest, try exported(KittensFeature.self))
    default: (HomeFeature.manifest, try exported(HomeFeature.self))
    }
  }

  @Test(arguments: ["counter", "levels", "kittens", "home"])
  func theDerivedCatalogueIsTheHandWrittenOne(_ id: String) throws {
    let (written, exported) = try Self.manifests(id)
    #expect(exported.id == id)
    #expect(!written.actionsWritten)
    #expect(exported.actions == Self.handWritten[id])
  }

  /// The manifest JSON each plugin hands over is the one the hand-written list gave.
  @Test(arguments: ["counter", "levels", "kittens", "home"])
  func theExportedJSONIsTheHandWrittenOnes(_ id: String) throws {
    let manifests = try Self.manifests(id)
    var written = manifests.written
    written.actions = try #require(Self.handWritten[id])
    #expect(manifests.exported.json.serialized() == written.json.serialized())
  }

  /// A list an author writes wins over the derived one.
  @Test func aHandWrittenListWins() throws {
    #expect(try Self.exported(WrittenCatalogue.self).actions.map(\.type) == ["go"])
    #expect(WrittenCatalogue.manifest.actionsWritten)
    #expect(!CounterFeature.manifest.actionsWritten)
  }

  /// Only `reduce(into:action:changed:)` written: the other is FeatureKit's, and reports the change.
  @Test func aReducerThatSaysWhatChangedIsEnough() throws {
    var state = ChangedOnly.State()
    _ = try ChangedOnly().reduce(into: &state, action: .go)
    #expect(state.steps == 1)
  }
}

/// A feature whose manifest lists its one action by hand, unlike its enum's comments.
struct WrittenCatalogue: Feature {
  struct State: Codable, Equatable, Sendable {}
  enum Action: Codable, Sendable, Equatable {
    /// Not this help: the manifest's.
    case go
  }
  static let manifest = Manifest(
    id: "written", name: "Written", version: "1", description: "", actions: [ActionSpec("go", help: "Go.")])
  // This test module has no build plugin (it holds several features): what it would write is here.
  init(config: FeatureConfig) {}
  func initialState() -> State { State() }
  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
  func render(_ state: State) -> [String] { [] }
}

/// A feature that implements only the reducer that says what changed.
struct ChangedOnly: Feature {
  struct State: Codable, Equatable, Sendable { var steps = 0 }
  enum Action: Codable, Sendable, Equatable {
    /// One step.
    case go
  }
  static let manifest = Manifest(id: "changed", name: "Changed", version: "1", description: "")
  init() {}
  init(config: FeatureConfig) {}
  func initialState() -> State { State() }
  func reduce(into state: inout State, action: Action, changed: inout Bool) -> Effect<Action> {
    state.steps += 1
    changed = true
    return .none
  }
  func render(_ state: State) -> [String] { [] }
}
