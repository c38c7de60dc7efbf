import FeatureTesting
import Foundation
import Testing

@testable import HostKit

/// The store's life, gate and inbox are values: what each transition leaves, and what is refused.
@Suite("Store life, gate and inbox")
struct StoreLifeTests {
  /// A retired instance of the C example, which is built already: an exit test's child that
  /// built the fixture would leave the fixture's folder behind (it ends without running atexit).
  static func retired() throws -> RetiredInstance {
    RetiredInstance(plugin: try PluginLoader.load(PluginPaths.library("CExample")), state: "{}", view: "v")
  }

  @Test func aStoreStartsRunsClosesAndIsClosed() throws {
    // given a store's life as it is made
    var life = StoreLife.starting
    #expect(!life.isRunning && !life.isEnding)
    // when its instance starts, then stop is asked, then the thread ends
    life.started()
    #expect(life.isRunning)
    let first = life.stopRequested()
    let second = life.stopRequested()
    #expect(first && !second, "a second stop changes nothing")
    #expect(life.isEnding && !life.isClosed && !life.endedAfterLoss)
    life.closed(retired: try Self.retired())
    // then it is closed, with what answers afterwards
    #expect(life.isClosed && life.retired != nil && !life.endedAfterLoss)
    let afterClose = life.stopRequested()
    #expect(!afterClose)
  }

  @Test func aStopBeforeTheStartKeepsTheStoreClosing() {
    var life = StoreLife.starting
    let stopped = life.stopRequested()
    life.started()
    #expect(stopped)
    #expect(!life.isRunning && life.isEnding)
  }

  @Test func aLossWhileClosingIsAClosingAfterLoss() throws {
    // given a store asked to stop
    var life = StoreLife.running
    _ = life.stopRequested()
    // when its instance is lost before the thread ends
    life.lost()
    // then it ends after the loss, also once closed
    #expect(life.endedAfterLoss)
    life.closed(retired: try Self.retired())
    #expect(life.endedAfterLoss && life.isClosed)
  }

  @Test func aTransitionThatIsNotAllowedTrapsInDebugBuilds() async {
    // An instance starts once: starting a running store is a programming error.
    await #expect(processExitsWith: .failure) {
      var life = StoreLife.starting
      life.started()
      life.started()
    }
    // A store closes only after closing began.
    await #expect(processExitsWith: .failure) {
      var life = StoreLife.running
      life.closed(retired: try StoreLifeTests.retired())
    }
  }

  @Test(arguments: [
    (StoreGate.open, [true, true, true, true]),
    (.feedbackHeld, [true, false, true, true]),
    (.paused, [false, false, false, true]),
  ])
  func aGateAdmitsWhatItShould(gate: StoreGate, admitted: [Bool]) {
    // user action, feedback action, step, job
    let items: [InboxItem] = [
      .action("{}", .user), .action("{}", .feedback), .step("{}"), .job({ _ in }, commitsFirst: true),
    ]
    #expect(items.map(gate.admits) == admitted)
  }

  @Test func theInboxTakesWhatTheGateAdmitsAndKeepsTheRestInOrder() {
    // given an inbox holding a feedback action between two user actions
    var inbox = Inbox(capacity: 2)
    let accepted = [InboxItem.action("a", .user), .action("f", .feedback), .action("b", .user)].map {
      inbox.accept($0, life: .running)
    }
    #expect(accepted == [true, true, true])
    #expect(inbox.isFull)
    // when the store thread takes a batch while the feedback loop is held
    var batch: [InboxItem] = []
    inbox.take(under: .feedbackHeld, into: &batch)
    // then it gets the user actions, and the feedback action waits
    #expect(batch.compactMap(\.actionJSON) == ["a", "b"])
    #expect(inbox.items.compactMap(\.actionJSON) == ["f"])
    // and what is put back comes first
    inbox.putBack(batch[1...])
    #expect(inbox.items.compactMap(\.actionJSON) == ["b", "f"])
  }

  @Test func theInboxCountsWhatArrivesOnceTheStoreEnds() throws {
    var inbox = Inbox(capacity: 8)
    // while closing: unapplied; once closed: late; once closed after a loss: after closing
    let lives: [(InboxItem, StoreLife)] = [
      (.action("a", .user), .closing(afterLoss: false)),
      (.action("b", .effect), .closed(afterLoss: false, retired: try Self.retired())),
      (.action("c", .user), .closed(afterLoss: true, retired: try Self.retired())),
      // a step is not counted, nor a feedback's action (it runs again from the restored state)
      (.step("{}"), .closing(afterLoss: false)),
      (.action("e", .feedback), .closing(afterLoss: false)),
    ]
    let accepted = lives.map { inbox.accept($0.0, life: $0.1) }
    #expect(accepted == [false, false, false, false, false])
    #expect(inbox.report == StopReport(unapplied: 1, late: 1, refused: 0, afterClosing: 1))
    // and the actions left at the end count as unapplied, but a feedback's; the jobs are handed back
    _ = inbox.accept(.action("d", .user), life: .running)
    _ = inbox.accept(.action("f", .feedback), life: .running)
    inbox.append(job: { _ in }, commitsFirst: true)
    let left = inbox.drain()
    #expect(left.count == 3)
    #expect(inbox.report.unapplied == 2)
  }

  @Test func timersOnTheManualClockFireInDeadlineOrderThenScheduleOrder() {
    var timers = StoreTimers(clock: .manual)
    let late = timers.schedule(after: 20, actions: ["{}"], source: .effect)
    let first = timers.schedule(after: 10, actions: ["{}"], source: .feedback)
    let second = timers.schedule(after: 10, actions: ["{}"], source: .effect)
    #expect(timers.feedbackCount == 1)
    let none = timers.advance(by: 5)
    let due = timers.advance(by: 5)
    #expect(none.isEmpty && due == [first, second])
    let removed = (timers.remove(first), timers.remove(first))
    #expect(removed.0 != nil && removed.1 == nil)
    let later = timers.advance(by: 100)
    #expect(later == [second, late])
    let forgotten = timers.removeAll()
    #expect(forgotten == 2)
  }
}

extension InboxItem {
  fileprivate var actionJSON: String? {
    if case .action(let json, _, _) = self { return json }
    return nil
  }
}
