import FeatureTesting
import HostKit
import Testing

/// A store lives as long as its owner keeps it once stopped; stopping destroys its instance.
@Suite("Store lifetime")
struct StoreLifetimeTests {
  /// An instance factory that remembers the instances it made, weakly.
  final class Tracker: @unchecked Sendable {
    // @unchecked: written once per store, on the test's thread, before it is read.
    weak var instance: (any PluginInstance)?
  }

  @Test func aStoppedStoreIsFreedWithItsInstance() throws {
    // given a counter store that applied an action
    let tracker = Tracker()
    let factory = InstanceFactory { plugin, config, target throws(HostError) in
      let instance = try InstanceFactory.inProcess.makeInstance(of: plugin, config: config, target: target)
      tracker.instance = instance
      return instance
    }
    weak var released: Store?
    do {
      let store = try Store(
        plugin: try PluginLoader.load(CounterLibrary.path), instances: factory, observer: { _ in })
      try store.start()
      store.send(#"{"type":"increment"}"#, source: .user)
      #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
      // when it stops and its owner lets go of it
      store.stop()
      released = store
      #expect(tracker.instance != nil, "the store keeps its instance until it is freed")
    }
    // then the store and its instance are gone: nothing else held them
    #expect(released == nil)
    #expect(tracker.instance == nil)
  }

  @Test func aStoppedStoreStillAnswersItsLastStateAndViewButNothingElse() throws {
    // given a counter store stopped after one increment
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: { _ in })
    try store.start()
    store.send(#"{"type":"increment"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    store.stop()
    // when a caller asks after stop
    let state = store.perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }
    let dispatch = store.perform { instance in
      Result { () throws(PluginCallError) in try instance.dispatch(#"{"type":"increment"}"#) }
    }
    // then the state at stop answers, and a dispatch is refused as out of lifecycle
    #expect(try state.get() == #"{"clicks":1,"count":1}"#)
    #expect(throws: PluginCallError.self) { try dispatch.get() }
    #expect((try? dispatch.get()) == nil)
    if case .failure(let error) = dispatch { #expect(error.isLifecycle) }
  }

  @Test func invalidatingTheViewOffTheStoreThreadIsCaught() throws {
    // given a running store
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: { _ in })
    try store.start()
    defer { store.stop() }
    // then the test thread is not the store thread, and a job is
    #expect(store.isOnStoreThread == false)
    #expect(store.perform { _ in store.isOnStoreThread })
  }
}
