import FeatureTesting
import Foundation
import Testing

@testable import HostKit

/// The store thread's short wait for the next item after a job: it ends as soon as an item is
/// there or the store is asked to end, and at its limit when nothing comes.
@Suite struct AwaitArrivalTests {
  @Test func anItemAlreadyQueuedEndsItAtOnce() {
    let external = StoreExternalState.started()
    external.enqueue(.tick)
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .seconds(30)) }
    #expect(elapsed < .seconds(15), "waited \(elapsed) with an item queued")
  }

  @Test func anItemQueuedByAnotherThreadEndsIt() {
    let external = StoreExternalState.started()
    let sender = Thread { external.enqueue(.tick) }
    sender.start()
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .seconds(30)) }
    #expect(elapsed < .seconds(15), "waited \(elapsed) for an item another thread queued")
    #expect(!external.isInboxEmpty)
  }

  @Test func withNothingComingItEndsAtItsLimit() {
    let external = StoreExternalState.started()
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .milliseconds(2)) }
    #expect(elapsed >= .milliseconds(2))
    #expect(external.isInboxEmpty)
  }

  @Test func aStopRequestEndsIt() throws {
    let external = StoreExternalState.started()
    let stopped = DispatchSemaphore(value: 0)
    let stopper = Thread {
      _ = external.stopAndWait()
      stopped.signal()
    }
    stopper.start()
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .seconds(30)) }
    #expect(elapsed < .seconds(15), "waited \(elapsed) though the store was asked to stop")
    // The stopper waits for the close, as a store thread would make it.
    #expect(external.drainOrClose(retired: try StoreLifeTests.retired()) == nil)
    stopped.wait()
  }

  @Test func aLostInstanceEndsIt() {
    let external = StoreExternalState.started()
    let loser = Thread { external.lost() }
    loser.start()
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .seconds(30)) }
    #expect(elapsed < .seconds(15), "waited \(elapsed) though the instance was lost")
  }

  @Test func aStoreAlreadyEndingEndsItAtOnce() {
    let external = StoreExternalState.started()
    external.lost()
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .seconds(30)) }
    #expect(elapsed < .seconds(15), "waited \(elapsed) on a store already ending")
  }
}
