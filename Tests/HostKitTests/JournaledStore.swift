import FeatureTesting
import HostKit

/// A started store that journals into a file and records the events it reports: what the store
/// tests hold. The test stops `store` when done.
struct JournaledStore {
  let store: Store
  let events: EventRecorder
  /// Where the journal is written (nothing is, when the store was started without one).
  let journalPath: String

  /// Makes a store of `plugin` with `options`, its instances made by `instances`, and starts it,
  /// journaling into a new journal at `journalPath` (or into none, when `journaled` is false)
  /// whose first record is the first instance's state.
  static func start(
    _ plugin: LoadedPlugin, journalPath: String, journaled: Bool = true, options: Store.Options = Store.Options(),
    instances: InstanceFactory
  ) throws -> JournaledStore {
    let journal = journaled ? try SessionJournal.create(at: journalPath, plugin: plugin, config: "{}") : nil
    let events = EventRecorder()
    let store = try Store(
      plugin: plugin, options: options, journal: journal, instances: instances, observer: events.observer)
    try store.start(restored: false) { instance throws(HostError) in
      guard let journal else { return }
      let state: String
      do throws(PluginCallError) {
        state = try instance.snapshot()
      } catch {
        throw HostError("no first state: \(error)")
      }
      try journal.recordInitialState(state)
    }
    return JournaledStore(store: store, events: events, journalPath: journalPath)
  }
}
