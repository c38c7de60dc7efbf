import FeatureJSON
import HostKit

/// One action a `FeatureTestStore`'s store handled: what it was, where it came from, what it did.
public struct AppliedAction: Sendable, Equatable {
  /// The action's JSON, as the plugin got it.
  public var action: String
  public var source: ActionSource
  /// Whether the state after it differs from the state before it.
  public var changed: Bool
  /// Whether the plugin refused it (the state is then unchanged).
  public var refused: Bool

  public init(action: String, source: ActionSource, changed: Bool, refused: Bool) {
    self.action = action
    self.source = source
    self.changed = changed
    self.refused = refused
  }

  /// The action's `type`, or its whole text when it has none.
  public var type: String {
    (try? JSONValue.parse(action))?["type"]?.stringValue ?? action
  }
}
