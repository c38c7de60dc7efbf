import Foundation
import Testing

@testable import HostKit

/// The store thread's short wait for the next item after a job: it ends as soon as an item is
/// there, and at its limit when none comes.
@Suite struct AwaitArrivalTests {
  static var tick: InboxItem { .action(#"{"type":"tick"}"#, .user, inputLine: 0) }

  func started() -> StoreExternalState {
    let external = StoreExternalState(capacity: 8, clock: .manual)
    external.started()
    return external
  }

  @Test func anItemAlreadyQueuedEndsItAtOnce() {
    let external = started()
    external.enqueue(Self.tick)
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .seconds(30)) }
    #expect(elapsed < .seconds(15), "waited \(elapsed) with an item queued")
  }

  @Test func anItemQueuedByAnotherThreadEndsIt() {
    let external = started()
    let sender = Thread { external.enqueue(Self.tick) }
    sender.start()
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .seconds(30)) }
    #expect(elapsed < .seconds(15), "waited \(elapsed) for an item another thread queued")
    #expect(!external.isInboxEmpty)
  }

  @Test func withNothingComingItEndsAtItsLimit() {
    let external = started()
    let elapsed = ContinuousClock().measure { external.awaitArrival(for: .milliseconds(2)) }
    #expect(elapsed >= .milliseconds(2))
    #expect(external.isInboxEmpty)
  }
}
