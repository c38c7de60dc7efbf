import Synchronization

/// Forwards every event of one store to each of its listeners: `observer` is the store's observer.
///
/// Made before its store (the store takes `observer`); `attach` names the presented feature once it
/// exists. Holds the feature and the stage weakly, so a store never keeps its feature alive.
public final class StoreListeners: Sendable {
  private let plugin: PluginBox
  private let state: Mutex<Attached>

  private struct Attached: Sendable {
    var listeners: [any StoreListener]
    /// Those that hear `.applied`: the event of every action goes to them without asking each.
    var hearingApplied: [any StoreListener]
    weak var feature: PresentedFeature?
    weak var stage: (any FeatureStage)?
  }

  /// Whether any listener hears `.applied`: when none does (a pipe's renderer and the runtime's
  /// own listener), an action's event costs one load, not the lock and the weak loads of an origin.
  private let appliedHeard: Atomic<Bool>

  /// Listeners of the store of `plugin`; `stage` answers whether its feature is on screen.
  public init(plugin: LoadedPlugin, stage: (any FeatureStage)?, listeners: [any StoreListener]) {
    self.plugin = PluginBox(plugin)
    state = Mutex(
      Attached(listeners: listeners, hearingApplied: listeners.filter(\.hearsApplied), feature: nil, stage: stage))
    appliedHeard = Atomic(listeners.contains { $0.hearsApplied })
  }

  /// Adds a listener: it hears the events from now on.
  public func add(_ listener: any StoreListener) {
    state.withLock { state in
      state.listeners.append(listener)
      // Under the lock: an event forwarded after it sees the listener and the flag together.
      if listener.hearsApplied {
        state.hearingApplied.append(listener)
        appliedHeard.store(true, ordering: .releasing)
      }
    }
  }

  /// Names the feature the store belongs to, once it is presented.
  public func attach(_ feature: PresentedFeature) {
    state.withLock { $0.feature = feature }
  }

  /// The store's observer: hands each event to every listener, in the order they were added.
  public var observer: @Sendable (StoreEvent) -> Void {
    { [self] event in forward(event) }
  }

  private func forward(_ event: StoreEvent) {
    let applied = if case .applied = event { true } else { false }
    if applied, !appliedHeard.load(ordering: .acquiring) { return }
    let (listeners, feature) = state.withLock { ((applied ? $0.hearingApplied : $0.listeners), $0.feature) }
    // The stage is read only when a listener asks about visibility (the renderer, of a view): its
    // weak load is a slow retain and release at every event.
    let origin = StoreOrigin(box: plugin, feature: feature, listeners: self)
    for listener in listeners { listener.hear(event, from: origin) }
  }

  /// The stage that answers whether the feature is on screen, while it is there.
  var stage: (any FeatureStage)? { state.withLock { $0.stage } }
}
