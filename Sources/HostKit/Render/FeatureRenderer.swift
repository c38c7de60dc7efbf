/// Draws presented features: hears their stores, and is told what the navigation shows.
///
/// The session runtime lets the shown features apply what the navigation started before it calls
/// `show`, and calls `finish` once at the end of the run. Calls come from any thread.
public protocol FeatureRenderer: StoreListener {
  /// Whether stores render after every change and report `viewChanged`: a live renderer. When no
  /// renderer is live, stores skip rendering until asked.
  var followsViews: Bool { get }
  /// Whether showing features for `reason` draws anything (the runtime waits for them only then).
  func draws(on reason: ShowReason) -> Bool
  /// The navigation shows `features` (the top frame), `focus` among them, for `reason`.
  func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason)
  /// The run ends with `features` shown: draw what is still to be drawn.
  func finish(_ features: [PresentedFeature], focus: PresentedFeature)
}
