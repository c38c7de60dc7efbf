import FeatureJSON
import FeatureTesting
import Foundation
import Testing

@testable import HostKit

/// A plugin whose threads emit faster than the store applies: in a worker, its emits are held
/// back (the listener stops reading the callbacks ring while the inbox is full, so the emitting
/// threads wait), and nothing is lost or reordered on the way.
@Suite("Backpressure on a worker's emits")
struct WorkerBackpressureTests {
  @Test func aFloodOfEmitsFromAWorkersThreadsWaitsForTheStoreInsteadOfFillingTheInbox() throws {
    // given the fixture in a worker, in a store whose inbox holds 32 items
    let capacity = 32
    let store = try Store(
      plugin: try PluginLoader.load(try FixturePlugin.path()), config: #"{"tag":"flood"}"#,
      options: Store.Options(inboxCapacity: capacity), instances: .worker(WorkerFixtures.settings),
      observer: { _ in })
    try store.start()
    // when 8 threads emit 10,000 actions each
    store.send(#"{"type":"burst","threads":8,"per":10000}"#, source: .user)
    // then every one is applied, in order per thread
    #expect(store.waitUntilSettled(timeout: .seconds(120)) == .settled)
    #expect(try store.state() == #"{"count":80000,"disorder":0,"foreign":0,"pings":0,"reentered":0}"#)
    // and the inbox never held more than its capacity and one read of the ring (64 KiB of
    // frames of at least 30 bytes), not the 80,000 the threads could have queued; one more read
    // for each time a call went 100 ms unanswered (a loaded machine) and the listener let one
    // through
    let releases = try #require(store.perform { _ in (store.instance as? WorkerInstance)?.stallReleases })
    #expect(store.inboxPeak <= capacity + (1 + releases) * (65_536 / 30), "peak \(store.inboxPeak), \(releases) stalls")
    store.stop()
  }

  @Test func aFullInboxSaysSoAfterTheSliceUnlessTheStoreIsGated() {
    // given a running store's inbox, full, and no store thread taking from it
    let external = StoreExternalState.started(capacity: 4)
    for _ in 0..<4 { external.enqueue(.action(#"{"type":"tick"}"#, .effect)) }
    // when the listener asks for room, it is told there is none after its slice
    #expect(!external.waitForEmitRoom(atMost: .milliseconds(5)))
    #expect(external.inboxPeak == 4)
    // and once the store is paused (nothing is taken: holding back would only wait) it may go on
    external.pause()
    #expect(external.waitForEmitRoom(atMost: .milliseconds(5)))
  }

  @Test func emitsGoThroughOnlyWhenACallWentUnansweredForTheStallTime() {
    let start = ContinuousClock.now
    var hold = HoldBack(answered: 10, at: start)
    // given a call waiting on the worker: within the stall time the emits stay held back, and an
    // answer (at 99 ms) starts the time again; when no answer comes for the stall time, they go
    // through (at 199 ms)
    let answersAt: [(answered: UInt64, milliseconds: Int)] = [(10, 50), (11, 99), (11, 150), (11, 199)]
    let held = answersAt.map {
      hold.letsThrough(answered: $0.answered, inCall: true, at: start + .milliseconds($0.milliseconds))
    }
    #expect(held == [false, false, false, true])
    // but with no call waiting on the worker they stay held back however long it takes
    var idle = HoldBack(answered: 0, at: start)
    let idleHeld = [5, 60].map { idle.letsThrough(answered: 0, inCall: false, at: start + .seconds($0)) }
    #expect(idleHeld == [false, false])
  }

  @Test func aFullInboxTheStoreDrainsLetsTheWaitingListenerGoOn() {
    // given a running store's inbox, full
    let external = StoreExternalState.started(capacity: 4)
    for _ in 0..<4 { external.enqueue(.action(#"{"type":"tick"}"#, .effect)) }
    let answered = DispatchSemaphore(value: 0)
    let room = Locked<Bool?>(nil)
    // when the listener waits for room (with no limit in practice) while the store takes a batch
    let waiter = Thread {
      let answer = external.waitForEmitRoom(atMost: .seconds(60))
      room.withLock { $0 = answer }
      answered.signal()
    }
    waiter.start()
    // (once it waits: the store thread's taking is what must wake it)
    let deadline = ContinuousClock.now + .seconds(30)
    while !external.hasEmitterWaiting && ContinuousClock.now < deadline { sched_yield() }
    #expect(external.hasEmitterWaiting)
    var batch: [InboxItem] = []
    #expect(external.takeBatch(into: &batch))
    // then the listener is told there is room, as soon as the batch is taken
    #expect(answered.wait(timeout: .now() + 30) == .success)
    #expect(room.withLock { $0 } == true)
    #expect(batch.count == 4)
  }
}
