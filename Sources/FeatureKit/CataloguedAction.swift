/// An action type that knows its catalogue: the actions a person may type, with their arguments
/// and help. FeatureKit's `ActionDecoding` build plugin writes the conformance for a feature's
/// `Action` enum from its cases: each case with a `///` comment is listed, the comment's first
/// paragraph its help and its `- Parameter name: text` lines its arguments' help; a case without
/// one (an effect's result), and `created` and `restored`, are not.
public protocol CataloguedAction {
  static var catalogue: [ActionSpec] { get }
}

extension Feature {
  /// The manifest the plugin exports: `manifest`, with the catalogue derived from `Action` when
  /// the author listed no `actions:`; nil when there is neither (the build plugin is not applied,
  /// or could not read the enum).
  public static var exportedManifest: Manifest? {
    guard !manifest.actionsWritten else { return manifest }
    guard let derived = Action.self as? any CataloguedAction.Type else { return nil }
    var exported = manifest
    exported.actions = derived.catalogue
    return exported
  }
}
