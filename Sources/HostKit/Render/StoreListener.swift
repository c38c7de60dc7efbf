/// Hears the events of presented features' stores: the line renderer, a full-screen view, a page.
///
/// Called on the reporting store's thread, in that store's order; several stores run at once, so
/// an implementation guards its own state.
public protocol StoreListener: AnyObject, Sendable {
  /// `event` from the store of `origin`'s feature.
  func hear(_ event: StoreEvent, from origin: StoreOrigin)
}

/// Which feature a store event comes from, and whether it is on screen as the event arrives.
public struct StoreOrigin: Sendable {
  /// The feature's plugin.
  public let plugin: LoadedPlugin
  /// The presented feature; nil only for what a plugin logs while its instance is being created.
  public let feature: PresentedFeature?
  /// Whether the feature is on the top frame of the navigation.
  public let isVisible: Bool
  /// How many features the top frame shows (a heading tells them apart when several are).
  public let visibleCount: Int

  public init(plugin: LoadedPlugin, feature: PresentedFeature?, isVisible: Bool, visibleCount: Int) {
    self.plugin = plugin
    self.feature = feature
    self.isVisible = isVisible
    self.visibleCount = visibleCount
  }
}

/// What the navigation shows, readable from any thread without waiting on navigation.
public protocol FeatureStage: AnyObject, Sendable {
  /// Whether `feature` is on the top frame.
  func isVisible(_ feature: PresentedFeature) -> Bool
  /// How many features the top frame shows.
  var visibleCount: Int { get }
}
