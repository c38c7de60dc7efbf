import Foundation
import Testing

@testable import HostKit

/// `Store.isQuiet`: what a job on the store thread reads to know that settling would change
/// nothing (exploring in a worker probes at once then).
@Suite struct StoreQuietTests {
  @Test func anIdleStoreIsQuiet() {
    #expect(StoreExternalState.started().isQuiet)
  }

  @Test func anItemQueuedIsNotQuietUntilTaken() {
    let external = StoreExternalState.started()
    external.enqueue(.tick)
    #expect(!external.isQuiet)
    var batch: [InboxItem] = []
    #expect(external.takeBatch(into: &batch))
    #expect(external.isQuiet)
  }

  @Test func anEffectInFlightIsNotQuietUntilItEnds() {
    let external = StoreExternalState.started()
    external.effectBegan()
    #expect(!external.isQuiet)
    external.effectEnded()
    #expect(external.isQuiet)
  }

  @Test func aPendingTimerIsNotQuietUntilCancelled() throws {
    let external = StoreExternalState.started()
    let id = try #require(external.schedule(after: 1_000_000, actions: [#"{"type":"tick"}"#], source: .effect))
    #expect(!external.isQuiet)
    external.cancelTimer(id)
    #expect(external.isQuiet)
  }

  @Test func aPausedStoreIsNotQuiet() {
    let external = StoreExternalState.started()
    external.pause()
    #expect(!external.isQuiet)
  }

  @Test func aStoreHasBeenBusyOnceAnEffectATimerOrAPauseCameEvenAfterItEnded() throws {
    let idle = StoreExternalState.started()
    idle.enqueue(.tick)
    var batch: [InboxItem] = []
    #expect(idle.takeBatch(into: &batch))
    #expect(!idle.hasBeenBusy, "actions alone never make it busy")
    let effect = StoreExternalState.started()
    effect.effectBegan()
    effect.effectEnded()
    #expect(effect.isQuiet && effect.hasBeenBusy)
    let timer = StoreExternalState.started()
    timer.cancelTimer(try #require(timer.schedule(after: 1_000, actions: ["{}"], source: .effect)))
    #expect(timer.isQuiet && timer.hasBeenBusy)
    let paused = StoreExternalState.started()
    paused.pause()
    #expect(paused.hasBeenBusy)
  }
}
