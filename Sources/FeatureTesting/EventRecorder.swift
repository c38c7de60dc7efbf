import FeatureJSON
import HostKit
import Synchronization

/// Records a store's events as they happen, for assertions once the store settled or stopped.
/// Pass `observer` to `Store(plugin:config:options:observer:)`.
public final class EventRecorder: Sendable {
  private let events = Mutex<[StoreEvent]>([])

  public init() {}

  /// The observer to hand the store.
  public var observer: @Sendable (StoreEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }

  /// Every event so far, in order.
  public var all: [StoreEvent] { events.withLock { $0 } }

  /// The applied actions with their sources, in order.
  public var applied: [(action: String, source: ActionSource)] {
    all.compactMap { event in
      guard case .applied(_, let action, let source, _) = event else { return nil }
      return (action, source)
    }
  }

  /// The `type` of each applied action, in order.
  public var appliedTypes: [String] {
    applied.map { (try? JSONValue.parse($0.action))?["type"]?.stringValue ?? $0.action }
  }

  /// The errors of the actions the plugin refused, in order.
  public var rejections: [PluginCallError] {
    all.compactMap { event in
      guard case .rejected(_, _, let error, _) = event else { return nil }
      return error
    }
  }

  /// The views drawn, in order.
  public var views: [String] {
    all.compactMap { event in
      guard case .viewChanged(let view) = event else { return nil }
      return view
    }
  }

  /// Why the runaway guard paused the store, each time it did.
  public var pauses: [HostError] {
    all.compactMap { event in
      guard case .paused(let error) = event else { return nil }
      return error
    }
  }
}

extension Store {
  /// The state as JSON, read on the store thread after everything queued before.
  public func state() throws -> String {
    try perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }.get()
  }

  /// The view, read on the store thread after everything queued before.
  public func view() throws -> String {
    try perform { instance in Result { () throws(PluginCallError) in try instance.render() } }.get()
  }
}
