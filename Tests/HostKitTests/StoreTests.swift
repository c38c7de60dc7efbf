import Dispatch
import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import Testing

@Suite("Store loop")
struct StoreTests {
  @Test func counterCountsThroughTheRealPlugin() async throws {
    // given a counter store (FeatureTesting's exhaustive harness over a real Store)
    let store = try await FeatureTestStore(plugin: CounterLibrary.path)
    // when, then: every state on the way
    await store.send("increment", assert: ["clicks": 1, "count": 1])
    await store.send("increment", assert: ["clicks": 2, "count": 2])
    await store.send("decrement", assert: #"{"clicks":3,"count":1}"#)
    #expect(store.history.map(\.source) == [.lifecycle, .user, .user, .user])
    #expect(store.history.first?.action == #"{"type":"created"}"#)
    #expect(try store.view == "Counter\n  count:  1\n  clicks: 3")
    #expect(await store.stop() == StopReport(unapplied: 0, late: 0))
    await store.finish()
  }

  @Test func theStoreDrawsTheViewAfterTheLastChange() throws {
    let events = EventRecorder()
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: events.observer)
    try store.start()
    for action in ["increment", "increment", "decrement"] {
      store.send(#"{"type":"\#(action)"}"#, source: .user)
    }
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    #expect(events.views.last == "Counter\n  count:  1\n  clicks: 3")
    store.stop()
  }

  @Test func aRestoredCounterKeepsItsStateAndSeesRestored() async throws {
    let store = try await FeatureTestStore(plugin: CounterLibrary.path, restoring: ["clicks": 9, "count": -3])
    #expect(await store.settle() == .settled)
    #expect(try store.state == ["clicks": 9, "count": -3])
    #expect(store.history.map(\.action) == [#"{"type":"restored"}"#])
    await store.finish()
  }

  @Test func snapshotRestoreSnapshotGivesIdenticalBytes() throws {
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: { _ in })
    try store.start()
    for _ in 0..<7 { store.send(#"{"type":"decrement"}"#, source: .user) }
    let first = try store.state()
    let second = try store.perform { instance in
      Result { () throws(PluginCallError) in
        try instance.restore(first)
        return try instance.snapshot()
      }
    }.get()
    #expect(first == #"{"clicks":7,"count":-7}"#)
    #expect(Array(second.utf8) == Array(first.utf8))
    store.stop()
  }

  @Test func anInvalidRestoredStateIsRefusedAndNamed() throws {
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: { _ in })
    defer { store.stop() }
    let error = #expect(throws: HostError.self) { try store.start(restoring: #"{"clicks":1,"count":5}"#) }
    #expect(error?.message.contains("count 5 cannot be reached in 1 clicks") == true)
  }

  @Test func aRefusedActionLeavesTheStateAsItWas() async throws {
    let store = try await FeatureTestStore(plugin: CounterLibrary.path)
    await store.send("increment", assert: ["clicks": 1, "count": 1])
    await store.send(#"{"type":"explode"}"#, rejectedWith: "explode")
    await store.send(#"{"type":"increment""#, rejectedWith: "not valid JSON")
    #expect(try store.state == ["clicks": 1, "count": 1])
    #expect(store.history.filter(\.refused).count == 2)
    await store.finish()
  }

  @Test func anEmitDuringDispatchIsQueuedNotReentered() throws {
    let events = EventRecorder()
    let store = try Store(plugin: try PluginLoader.load(try FixturePlugin.path()), observer: events.observer)
    try store.start()
    store.send(#"{"type":"ping","limit":50}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    #expect(try store.state() == #"{"count":0,"disorder":0,"foreign":0,"pings":50,"reentered":0}"#)
    #expect(events.applied.filter { $0.source == .feedback }.count == 49)
    store.stop()
  }

  @Test func aFeedbackLoopThatNeverSettlesIsPausedAndTheStoreStaysUsable() throws {
    let events = EventRecorder()
    let store = try Store(
      plugin: try PluginLoader.load(try FixturePlugin.path()), options: Store.Options(maxFeedbackSteps: 100),
      observer: events.observer)
    try store.start()
    store.send(#"{"type":"ping"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .paused)
    // the user's ping plus 100 feedback pings, then the guard trips
    #expect(try store.state() == #"{"count":0,"disorder":0,"foreign":0,"pings":101,"reentered":0}"#)
    #expect(events.pauses.count == 1)
    #expect(events.pauses.first?.message.contains("has not settled after 100 feedback steps") == true)
    store.resume()
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .paused)
    #expect(try store.state() == #"{"count":0,"disorder":0,"foreign":0,"pings":201,"reentered":0}"#)
    // and the feedback step held at the stop is not reported lost: it runs again from the state
    let report = store.stop()
    #expect(report.unapplied == 0)
  }

  @Test func twoInstancesOfOnePluginEmittingAtOnceNeverMix() throws {
    // given two instances of the same C plugin, each with its own libffi-bound callbacks
    let plugin = try PluginLoader.load(try FixturePlugin.path())
    let first = EventRecorder()
    let second = EventRecorder()
    let storeA = try Store(plugin: plugin, config: #"{"tag":"A"}"#, observer: first.observer)
    let storeB = try Store(plugin: plugin, config: #"{"tag":"B"}"#, observer: second.observer)
    try storeA.start()
    try storeB.start()
    // when both emit from four threads each at the same time
    storeA.send(#"{"type":"burst","threads":4,"per":2500}"#, source: .user)
    storeB.send(#"{"type":"burst","threads":4,"per":2500}"#, source: .user)
    // then every tick lands in its own store, exactly once
    #expect(storeA.waitUntilSettled(timeout: .seconds(30)) == .settled)
    #expect(storeB.waitUntilSettled(timeout: .seconds(30)) == .settled)
    #expect(try storeA.state() == #"{"count":10000,"disorder":0,"foreign":0,"pings":0,"reentered":0}"#)
    #expect(try storeB.state() == #"{"count":10000,"disorder":0,"foreign":0,"pings":0,"reentered":0}"#)
    #expect(first.applied.filter { $0.source == .effect }.count == 10000)
    #expect(second.applied.filter { $0.source == .effect }.count == 10000)
    storeA.stop()
    storeB.stop()
  }

  @Test func actionsSentAfterStopAreCountedAndNeverApplied() throws {
    let events = EventRecorder()
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: events.observer)
    try store.start()
    store.send(#"{"type":"increment"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    store.stop()
    store.send(#"{"type":"increment"}"#, source: .user)
    store.send(#"{"type":"increment"}"#, source: .effect)
    #expect(store.stop() == StopReport(unapplied: 0, late: 2))
    #expect(try store.state() == #"{"clicks":1,"count":1}"#)
    #expect(events.applied.count == 2)
  }

  @Test func aCallerWaitingForAJobWorksMeanwhileUntilItHasNothingLeft() throws {
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: { _ in })
    try store.start()
    defer { store.stop() }
    // given a store thread held in a job until the waiting caller has worked five times
    let gate = Self.holdStoreThread(of: store)
    // when a second job is waited for with work to do meanwhile (eight pieces)
    let calls = Locked(0)
    let work = {
      let done = calls.withLock { calls -> Int in
        calls += 1
        return calls
      }
      if done == 5 { gate.signal() }
      return done < 8
    }
    let state = store.perform(spinning: .milliseconds(2), meanwhile: work) { instance in
      (try? instance.snapshot()) ?? ""
    }
    // then the work was done while the job waited, and stopped when there was none left
    #expect(state == #"{"clicks":0,"count":0}"#)
    #expect(calls.withLock { $0 } >= 5)
    #expect(calls.withLock { $0 } <= 8)
  }

  @Test func aJobForLaterRunsBehindTheActionsBeforeItWhileItsCallerGoesOn() throws {
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: { _ in })
    try store.start()
    defer { store.stop() }
    // given a store thread held in a job, and two increments queued behind it
    let gate = Self.holdStoreThread(of: store)
    store.send(#"{"type":"increment"}"#, source: .user)
    store.send(#"{"type":"increment"}"#, source: .user)
    // when a job for later is queued (the caller is not held by the store) and one more increment
    let seen = Locked<String?>(nil)
    store.performLater { instance in seen.withLock { $0 = try? instance.snapshot() } }
    store.send(#"{"type":"increment"}"#, source: .user)
    #expect(seen.withLock { $0 } == nil, "the job waits for the store; its caller did not")
    gate.signal()
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    // then the job saw the two increments before it, not the one after
    #expect(seen.withLock { $0 } == #"{"clicks":2,"count":2}"#)
    #expect(try store.state() == #"{"clicks":3,"count":3}"#)
    #expect(!store.hasBeenBusy, "the counter runs no effect")
  }

  @Test func aJobForLaterOnAStoppedStoreRunsAtOnceAndMayAskTheStoreItself() throws {
    let store = try Store(plugin: try PluginLoader.load(CounterLibrary.path), observer: { _ in })
    try store.start()
    store.send(#"{"type":"increment"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    store.stop()
    // A job for later on a stopped store runs on the caller's thread, before performLater
    // returns, and may call perform itself (which takes the lock for the retired instance).
    let seen = Locked<String?>(nil)
    store.performLater { _ in
      let state = store.perform { instance in try? instance.snapshot() }
      seen.withLock { $0 = state }
    }
    #expect(seen.withLock { $0 } == #"{"clicks":1,"count":1}"#)
  }

  /// Holds `store`'s thread in a job (queued from a thread of its own) until the semaphore
  /// returned is signalled; returns once the job runs.
  static func holdStoreThread(of store: Store) -> DispatchSemaphore {
    let gate = DispatchSemaphore(value: 0)
    let held = DispatchSemaphore(value: 0)
    Thread {
      store.perform { _ in
        held.signal()
        gate.wait()
      }
    }.start()
    held.wait()
    return gate
  }

  @Test func aConfigTheFeatureRefusesIsReported() throws {
    let plugin = try PluginLoader.load(try FixturePlugin.path())
    let error = #expect(throws: HostError.self) {
      _ = try Store(plugin: plugin, config: #"{"refuse":true}"#, observer: { _ in })
    }
    #expect(error?.message.contains("config 'refuse' is set") == true)
  }
}
