import HostKit
import Synchronization

/// Records a store's events, for assertions after the store settled.
final class EventRecorder: Sendable {
  private let events = Mutex<[StoreEvent]>([])

  var observer: @Sendable (StoreEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }

  var all: [StoreEvent] { events.withLock { $0 } }

  var rejections: [PluginCallError] {
    all.compactMap { if case .rejected(_, _, let error) = $0 { return error } else { return nil } }
  }

  var applied: [(action: String, source: ActionSource)] {
    all.compactMap { if case .applied(_, let action, let source, _) = $0 { return (action, source) } else { return nil } }
  }

  var views: [String] {
    all.compactMap { if case .viewChanged(let view) = $0 { return view } else { return nil } }
  }

  var pauses: [HostError] {
    all.compactMap { if case .paused(let error) = $0 { return error } else { return nil } }
  }
}

extension Store {
  /// The state as JSON, read on the store thread after everything queued before.
  func state() throws -> String {
    try perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }.get()
  }
}
