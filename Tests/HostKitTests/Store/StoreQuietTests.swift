import Foundation
import Testing

@testable import HostKit

/// `Store.isQuiet`: what a job on the store thread reads to know that settling would change
/// nothing (exploring in a worker probes at once then).
@Suite struct StoreQuietTests {
  static var tick: InboxItem { .action(#"{"type":"tick"}"#, .user, inputLine: 0) }

  func started() -> StoreExternalState {
    let external = StoreExternalState(capacity: 8, clock: .manual)
    external.started()
    return external
  }

  @Test func anIdleStoreIsQuiet() {
    #expect(started().isQuiet)
  }

  @Test func anItemQueuedIsNotQuietUntilTaken() {
    let external = started()
    external.enqueue(Self.tick)
    #expect(!external.isQuiet)
    var batch: [InboxItem] = []
    #expect(external.takeBatch(into: &batch))
    #expect(external.isQuiet)
  }

  @Test func anEffectInFlightIsNotQuietUntilItEnds() {
    let external = started()
    external.effectBegan()
    #expect(!external.isQuiet)
    external.effectEnded()
    #expect(external.isQuiet)
  }

  @Test func aPendingTimerIsNotQuietUntilCancelled() throws {
    let external = started()
    let id = try #require(external.schedule(after: 1_000_000, actions: [#"{"type":"tick"}"#], source: .effect))
    #expect(!external.isQuiet)
    external.cancelTimer(id)
    #expect(external.isQuiet)
  }

  @Test func aPausedStoreIsNotQuiet() {
    let external = started()
    external.pause()
    #expect(!external.isQuiet)
  }
}
