import FeatureJSON

/// A feature: one MVI state machine that a plugin exports to the host.
///
/// State and Action are Codable; actions cross the plugin boundary as flat JSON objects
/// (`{"type": "set", "left": 3}`), which FeatureKit maps onto an enum's synthesized Codable
/// (`case set(left: Int)`).
///
/// The lifecycle actions the host sends after start are FeatureKit's unless the feature asks for
/// them: without `case created` / `case restored` in `Action`, a fresh instance keeps
/// `initialState()`, a restored one the state it was given, and feedback runs after either. Add
/// the case to react (a first load, a reconnect). FeatureKit also keeps their order (first, once).
///
/// What FeatureKit's `ActionDecoding` build plugin derives from the feature's module, so that a
/// feature is one file: the manifest's action catalogue (see `CataloguedAction`; list `actions:`
/// in the `Manifest` to write it yourself), `init(config:)` and `initialState()` where the module
/// writes none (write them to read settings or start elsewhere), the action decoder, the writer
/// of a state of plain members (`JSONObjectWritable`; `CodingKeys` or an `encode(to:)` of your
/// own leaves it to Codable), and the plugin's entry (define `fh_plugin_entry_v1` yourself to
/// export by hand, see `FeatureExport`).
///
/// Everything here runs on the store thread, one call at a time. `reduce` and `feedback` must be
/// pure: side effects belong in the `Effect`s they return.
public protocol Feature: Sendable {
  associatedtype State: Codable & Equatable & Sendable
  associatedtype Action: Codable & Sendable

  /// Identity and action catalogue, shown by `host list` and used to parse typed actions.
  /// Without `actions:` the catalogue is derived from `Action` (see `CataloguedAction`).
  static var manifest: Manifest { get }

  /// Builds the feature from its config (the JSON object given at create).
  /// Throw a `FeatureError` naming the bad setting to refuse the config.
  /// Default (written by the `ActionDecoding` build plugin for a struct that has none): `init()`,
  /// reading no settings, so any setting given is refused.
  init(config: FeatureConfig) throws

  /// The state of a fresh instance, before the `created` action.
  /// Default (written by the `ActionDecoding` build plugin where none is written): `State()`.
  func initialState() -> State

  /// Applies one action to the state and returns the work it starts. Throw a `FeatureError` to
  /// refuse the action (an argument out of range): the state is then left exactly as it was.
  /// Default: `reduce(into:action:changed:)`, for a feature that implements that one instead.
  /// Implement one of the two (the build plugin stops the build when neither is written).
  func reduce(into state: inout State, action: Action) throws -> Effect<Action>

  /// `reduce(into:action:)` that also says whether the state changed, which is what the host is
  /// told after each action. Default: FeatureKit keeps the state from before the action, compares
  /// it after, and puts it back when the reducer throws. That copy is cheap until the reducer
  /// mutates a large collection, which then is copied whole: a feature with a large state
  /// implements this instead, sets `changed` when it changes anything, and throws only before it
  /// changes anything.
  func reduce(into state: inout State, action: Action, changed: inout Bool) throws -> Effect<Action>

  /// Spin-style feedback: called with each new state (and after the lifecycle actions); the only
  /// place besides effects where actions are produced. Default: none.
  func feedback(_ state: State) -> Effect<Action>

  /// How long the actions a feedback sends wait before they are sent, so a person can watch a
  /// loop converge. With a non-zero interval only the latest state's feedback is sent: a new state
  /// replaces what an older one asked for (Spin's "cancel on new state"). Default: zero, sent at once.
  var feedbackInterval: Duration { get }

  /// The view: lines of plain text, no terminal control sequences.
  func render(_ state: State) -> [String]

  /// The view drawn with the host's hints (`RenderOptions`: the terminal's width, the whole view
  /// for `:view`). Default: `render(_:)`.
  func render(_ state: State, options: RenderOptions) -> [String]

  /// Checks a state given to `restore` beyond what decoding checks. Default: accepts all.
  func validate(_ state: State) throws
}

extension Feature {
  public func feedback(_ state: State) -> Effect<Action> { .none }
  public var feedbackInterval: Duration { .zero }
  public func validate(_ state: State) throws {}
}

/// An error a feature reports to the host: one line saying what is wrong and how to fix it.
public struct FeatureError: Error, Sendable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
