/// Hears the events of presented features' stores: the line renderer, a full-screen view, a page.
///
/// Called on the reporting store's thread, in that store's order; several stores run at once, so
/// an implementation guards its own state.
public protocol StoreListener: AnyObject, Sendable {
  /// `event` from the store of `origin`'s feature.
  func hear(_ event: StoreEvent, from origin: StoreOrigin)

  /// Whether it hears `.applied`, the event of every action (true unless it says otherwise): a
  /// store whose listeners all ignore it makes nothing of it, not even an origin.
  var hearsApplied: Bool { get }
}

extension StoreListener {
  public var hearsApplied: Bool { true }
}

/// Which feature a store event comes from, and whether it is on screen as the listener asks.
public struct StoreOrigin: Sendable {
  /// The feature's plugin.
  public var plugin: LoadedPlugin { box.plugin }
  /// Held by reference: an origin is made for every event, and a `LoadedPlugin` is a dozen
  /// references to copy.
  private let box: PluginBox
  /// The presented feature; nil only for what a plugin logs while its instance is being created.
  public let feature: PresentedFeature?
  /// Where visibility is asked, when asked: only the renderer asks, of a view, and the stage's
  /// lock would cost every action's event (exploring hears them all).
  private let visibility: Visibility

  private enum Visibility {
    case known(isVisible: Bool, count: Int)
    /// The listeners' stage, read (a weak load) only when asked.
    case stage(of: StoreListeners)
  }

  /// Whether the feature is on the top frame of the navigation.
  public var isVisible: Bool {
    switch visibility {
    case .known(let isVisible, _): return isVisible
    case .stage(let listeners): return feature.map { listeners.stage?.isVisible($0) ?? false } ?? false
    }
  }

  /// How many features the top frame shows (a heading tells them apart when several are).
  public var visibleCount: Int {
    switch visibility {
    case .known(_, let count): return count
    case .stage(let listeners): return listeners.stage?.visibleCount ?? 0
    }
  }

  public init(plugin: LoadedPlugin, feature: PresentedFeature?, isVisible: Bool, visibleCount: Int) {
    box = PluginBox(plugin)
    self.feature = feature
    visibility = .known(isVisible: isVisible, count: visibleCount)
  }

  init(box: PluginBox, feature: PresentedFeature?, listeners: StoreListeners) {
    self.box = box
    self.feature = feature
    visibility = .stage(of: listeners)
  }
}

/// A plugin held by reference.
final class PluginBox: Sendable {
  let plugin: LoadedPlugin
  init(_ plugin: LoadedPlugin) { self.plugin = plugin }
}

/// What the navigation shows, readable from any thread without waiting on navigation.
public protocol FeatureStage: AnyObject, Sendable {
  /// Whether `feature` is on the top frame.
  func isVisible(_ feature: PresentedFeature) -> Bool
  /// How many features the top frame shows.
  var visibleCount: Int { get }
}
