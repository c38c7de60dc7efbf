import Foundation
import Testing

@testable import HostKit

/// The store thread's spin for its next item: skipped when items wait, shorter after each wait
/// that outlasted it.
@Suite("The store thread's spin for work")
struct IdleSpinTests {
  static func action(_ number: Int) -> InboxItem { .action(#"{"type":"n\#(number)"}"#, .user, inputLine: 0) }

  @Test func itemsAlreadyQueuedAreTakenWithoutSpinningOrChangingTheSpin() {
    let external = StoreExternalState(capacity: 16, clock: .real)
    var spin = IdleSpin()
    var batch: [InboxItem] = []
    // given two items queued before the store thread looks
    external.enqueue(Self.action(1))
    external.enqueue(Self.action(2))
    // then it takes both at once, its spin as it was
    #expect(spin.takeBatch(from: external, into: &batch))
    #expect(batch.count == 2)
    #expect(spin.budget == IdleSpin.most)
  }

  @Test func eachItemThatComesLongAfterTheSpinHalvesItDownToAMicrosecond() throws {
    let external = StoreExternalState(capacity: 16, clock: .real)
    var spin = IdleSpin()
    var budgets: [Duration] = []
    for number in 0..<6 {
      // given an item sent 20 ms after the store thread began to look (the scenario, not a wait
      // for the other thread: whenever it comes, it comes after the 20 µs spin)
      let sender = Thread {
        usleep(20_000)
        external.enqueue(Self.action(number))
      }
      sender.start()
      var batch: [InboxItem] = []
      try #require(spin.takeBatch(from: external, into: &batch))
      #expect(batch.count == 1)
      budgets.append(spin.budget)
    }
    // then each wait halves the spin, down to its least
    #expect(
      budgets == [
        .microseconds(10), .microseconds(5), .nanoseconds(2_500), .nanoseconds(1_250), .microseconds(1),
        .microseconds(1),
      ])
  }
}
