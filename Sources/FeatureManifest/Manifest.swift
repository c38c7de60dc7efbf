/// What a plugin tells the host about its feature: identity, the catalogue of typed actions, the
/// navigation steps it emits and what it needs beyond computing.
///
/// One model for both sides of the boundary: a plugin author builds it in Swift and FeatureKit
/// hands it over as JSON (`json`); the host reads that JSON back with `init(json:)`. No value of
/// this type crosses the C boundary itself.
public struct Manifest: Sendable, Equatable {
  public var id: String
  public var name: String
  public var version: String
  public var description: String
  /// The actions a person may type. In Swift, FeatureKit derives them from the feature's
  /// `Action` enum (the `ActionDecoding` build plugin reads its cases and their `///` comments)
  /// unless the author lists them here.
  public var actions: [ActionSpec]
  /// Whether `actions` is the author's own list (given to `init`, or read from JSON); when not,
  /// FeatureKit exports the catalogue derived from `Action` in its place.
  public var actionsWritten: Bool
  /// The navigation steps the feature emits (see `Effect.navigate`).
  public var steps: [StepSpec]
  /// The ports and paths the feature needs; its worker is granted these and nothing else.
  public var needs: Needs

  /// `actions` nil (the default) takes the catalogue derived from the feature's `Action`.
  public init(
    id: String, name: String, version: String, description: String, actions: [ActionSpec]? = nil,
    steps: [StepSpec] = [], needs: Needs = .none
  ) {
    self.id = id
    self.name = name
    self.version = version
    self.description = description
    self.actions = actions ?? []
    self.actionsWritten = actions != nil
    self.steps = steps
    self.needs = needs
  }

  /// The lifecycle actions only the host sends; a catalogue may not list them.
  public static let lifecycleTypes: Set<String> = ["created", "restored"]

  /// The catalogued action called `type`.
  public func action(named type: String) -> ActionSpec? { actions.first { $0.type == type } }
}
