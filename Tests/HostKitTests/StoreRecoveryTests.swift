import Dispatch
import FeatureTesting
import HostKit
import Testing

@Suite("Store recovery from a lost instance")
struct StoreRecoveryTests {
  static let boom = #"{"type":"boom"}"#
  static let increment = #"{"type":"increment"}"#
  static let decrement = #"{"type":"decrement"}"#

  /// A started counter store journaling into a fresh file, its instances made under `plan`.
  static func harness(
    _ plan: FaultPlan, journaled: Bool = true, recovery: RecoveryPolicy = .standard, rendersViews: Bool = false
  ) throws -> JournaledStore {
    try JournaledStore.start(
      try PluginLoader.load(CounterLibrary.path), journalPath: "\(try FixturePlugin.temporaryFolder())/counter.jsonl",
      journaled: journaled, options: Store.Options(rendersViews: rendersViews, recovery: recovery),
      instances: plan.factory)
  }

  static func losses(_ events: EventRecorder) -> [StoreEvent] {
    events.all.filter {
      switch $0 {
      case .instanceLost, .instanceRestarted, .closed: true
      default: false
      }
    }
  }

  @Test func anActionThatCrashesIsNotAppliedAndTheQueueGoesOnOnARestoredInstance() throws {
    // given a counter whose instance crashes on `boom`
    let plan = FaultPlan.crashing(on: "boom")
    let harness = try Self.harness(plan)
    let store = harness.store
    // when boom is queued between actions
    for action in [Self.increment, Self.increment, Self.boom, Self.increment, Self.decrement] {
      store.send(action, source: .user)
    }
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    // then the crash is reported, a new instance restored the state after seq 3 and heard
    // `restored`, and the actions behind boom were applied in order on it
    #expect(
      Self.losses(harness.events) == [
        .instanceLost(.signalled(11), call: "dispatch", action: Self.boom), .instanceRestarted(sequence: 3),
      ])
    #expect(harness.events.appliedTypes == ["created", "increment", "increment", "restored", "increment", "decrement"])
    #expect(try store.state() == #"{"clicks":4,"count":2}"#)
    #expect(plan.made == 2)
    #expect(!store.isClosed)
    store.stop()
    // and the journal holds the crash, not boom, and restores to the same state
    let journal = try Journal.read(path: harness.journalPath)
    let records = try journal.records()
    #expect(records.contains(.crash(JournalCrash(seq: 3, call: "dispatch", action: Self.boom, loss: "signal 11"))))
    #expect(!records.contains { if case .action(let action) = $0 { action.json == Self.boom } else { false } })
    #expect(journal.lastSeq == 6)
    #expect(try journal.history().effectiveActions().map(\.seq) == [1, 2, 3, 4, 5, 6])
  }

  @Test func threeCrashesWithinTheWindowCloseTheFeature() throws {
    // given a counter that crashes on boom, under a clock that moves 10 s between crashes
    let clock = ManualClock()
    let plan = FaultPlan.crashing(on: "boom")
    let harness = try Self.harness(plan, recovery: RecoveryPolicy(now: clock.now))
    let store = harness.store
    // when it crashes three times within 60 s, with actions queued behind the third crash
    for _ in 0..<2 {
      store.send(Self.boom, source: .user)
      #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
      clock.advance(by: .seconds(10))
    }
    for action in [Self.boom, Self.increment, Self.increment] { store.send(action, source: .user) }
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .stopped)
    // then the feature is closed after the third crash, with no restart after it
    let losses = Self.losses(harness.events)
    #expect(losses.count == 6)
    #expect(
      losses.last
        == .closed(HostError(StoreFailure.crashedTooOften(feature: "counter", crashes: 3, window: .seconds(60)))))
    #expect(losses.last.map { "\($0)" }?.contains("counter crashed 3 times within 60 s; it is closed") == true)
    #expect(store.isClosed)
    // (the fourth instance only restored the journal's last state to draw it: nothing was drawn)
    #expect(plan.made == 4)
    // and the actions behind it, or typed after it, were never applied, nor blamed on the plugin
    store.send(Self.increment, source: .user)
    let report = store.stop()
    #expect(report.unapplied + report.afterClosing == 3)
    #expect(report.afterClosing >= 1)
    #expect(report.late == 0)
    // and what is left to show is the view of the last state the journal holds
    #expect(store.perform { try? $0.render() }?.contains("count:  0") == true)
    #expect(harness.events.appliedTypes == ["created", "restored", "restored"])
  }

  @Test func crashesSpreadOverMoreThanTheWindowRestartEachTime() throws {
    // given a counter that crashes on boom, under a clock that moves 31 s between crashes
    let clock = ManualClock()
    let plan = FaultPlan.crashing(on: "boom")
    let harness = try Self.harness(plan, recovery: RecoveryPolicy(now: clock.now))
    let store = harness.store
    // when it crashes four times, never three within 60 s
    for _ in 0..<4 {
      store.send(Self.boom, source: .user)
      store.send(Self.increment, source: .user)
      #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
      clock.advance(by: .seconds(31))
    }
    // then every crash was followed by a restart, and the feature goes on
    #expect(!store.isClosed)
    #expect(plan.made == 5)
    #expect(
      Self.losses(harness.events).filter { if case .instanceRestarted = $0 { true } else { false } }.count == 4)
    #expect(try store.state() == #"{"clicks":4,"count":4}"#)
    store.stop()
  }

  @Test func aStoreWithoutAJournalClosesOnTheFirstLoss() throws {
    // given a counter store that keeps no journal
    let harness = try Self.harness(.crashing(on: "boom"), journaled: false)
    // when its instance is lost
    harness.store.send(Self.boom, source: .user)
    #expect(harness.store.waitUntilSettled(timeout: .seconds(10)) == .stopped)
    // then it cannot rebuild the state, so it closes
    #expect(
      Self.losses(harness.events) == [
        .instanceLost(.signalled(11), call: "dispatch", action: Self.boom),
        .closed(
          HostError(StoreFailure.notRestarted(feature: "counter", reason: "it keeps no journal to restore from"))),
      ])
    #expect(harness.store.isClosed)
    harness.store.stop()
  }

  @Test func aNewInstanceLostWhileRestoringCountsAsAnotherCrash() throws {
    // given a counter whose every restore is lost (the first instance restores nothing)
    let plan = FaultPlan { call in
      switch call.name {
      case "dispatch" where call.json == Self.boom: .signalled(11)
      case "restore": .exited(3)
      default: nil
      }
    }
    let harness = try Self.harness(plan)
    // when boom crashes it
    harness.store.send(Self.boom, source: .user)
    #expect(harness.store.waitUntilSettled(timeout: .seconds(10)) == .stopped)
    // then each restart is lost in turn, and the third loss closes the feature
    #expect(
      Self.losses(harness.events) == [
        .instanceLost(.signalled(11), call: "dispatch", action: Self.boom),
        .instanceLost(.exited(3), call: "restore", action: nil),
        .instanceLost(.exited(3), call: "restore", action: nil),
        .closed(HostError(StoreFailure.crashedTooOften(feature: "counter", crashes: 3, window: .seconds(60)))),
      ])
    // (the fourth only tried to restore the last state to draw it)
    #expect(plan.made == 4)
    harness.store.stop()
  }

  @Test func anInstanceLostWhileDrawingIsRestartedAndTheViewRedrawn() throws {
    // given a counter drawing its views, whose second render is lost
    let plan = FaultPlan { call in
      call.name == "render" && call.count == 1 ? .unresponsive(call: "render", seconds: 10) : nil
    }
    let harness = try Self.harness(plan, rendersViews: true)
    let store = harness.store
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    // when an action changes the view
    store.send(Self.increment, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    // then the loss names no action, and the restored instance draws the view it reached
    #expect(
      Self.losses(harness.events) == [
        .instanceLost(.unresponsive(call: "render", seconds: 10), call: "render", action: nil),
        .instanceRestarted(sequence: 2),
      ])
    #expect(harness.events.views.last == "Counter\n  count:  1\n  clicks: 1")
    store.stop()
  }

  @Test func aJobThatMeetsALostInstanceHasItRestarted() throws {
    // given a counter whose first snapshot after start is lost
    let plan = FaultPlan { call in call.name == "snapshot" && call.count == 1 ? .signalled(9) : nil }
    let harness = try Self.harness(plan)
    let store = harness.store
    store.send(Self.increment, source: .user)
    // when `:state` asks for the state
    #expect(throws: PluginCallError.self) { try store.state() }
    // then the job gets the loss as its error, and the store goes on with a restored instance
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    #expect(try store.state() == #"{"clicks":1,"count":1}"#)
    #expect(Self.losses(harness.events).last == .instanceRestarted(sequence: 2))
    store.stop()
  }

  @Test func aStuckCallInterruptedIsLostAndTheFeatureRestarted() throws {
    // given a counter whose `hang` never returns by itself
    let plan = FaultPlan(hangingOn: "hang")
    let harness = try Self.harness(plan)
    let store = harness.store
    store.send(Self.increment, source: .user)
    store.send(#"{"type":"hang"}"#, source: .user)
    store.send(Self.increment, source: .user)
    // when, the store being stuck, its call is interrupted
    #expect(!store.waitUntilIdle(timeout: .milliseconds(50)))
    #expect(store.interruptCall())
    // then the call is lost as a crash, and the store goes on with a restored instance
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    #expect(
      Self.losses(harness.events) == [
        .instanceLost(.signalled(9), call: "dispatch", action: #"{"type":"hang"}"#), .instanceRestarted(sequence: 2),
      ])
    #expect(try store.state() == #"{"clicks":2,"count":2}"#)
    store.stop()
    // and a stopped store has no call to interrupt
    #expect(!store.interruptCall())
  }

  /// Queues `actions` while the store is busy, so it takes them as one run.
  static func queueTogether(_ actions: [String], on store: Store) {
    let inside = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      store.perform { _ in
        inside.signal()
        release.wait()
      }
    }
    inside.wait()
    for action in actions { store.send(action, source: .user) }
    release.signal()
  }

  @Test func anActionThatCrashesInARunIsFoundByDispatchingTheRunAgainOneAtATime() throws {
    // given a counter whose instances, like workers, answer a run of dispatches at its end
    let plan = FaultPlan(batchesLikeAWorker: true) { call in
      call.name == "dispatch" && call.json == Self.boom ? .signalled(11) : nil
    }
    let harness = try Self.harness(plan)
    let store = harness.store
    // when boom is in the middle of one run
    Self.queueTogether([Self.increment, Self.increment, Self.boom, Self.increment, Self.decrement], on: store)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    // then only boom is blamed, once: the run went again one action at a time on a new
    // instance, and boom brought that one down too
    #expect(
      Self.losses(harness.events) == [
        .instanceLost(.signalled(11), call: "dispatch", action: Self.boom), .instanceRestarted(sequence: 4),
      ])
    #expect(
      harness.events.appliedTypes == [
        "created", "restored", "increment", "increment", "restored", "increment", "decrement",
      ])
    #expect(try store.state() == #"{"clicks":4,"count":2}"#)
    #expect(plan.made == 3)
    store.stop()
  }

  @Test func aRunLostToSomethingElseIsAppliedWholeAndTheLossReportedAfterIt() throws {
    // given a worker-like counter killed in the second dispatch of a run, once
    let plan = FaultPlan(batchesLikeAWorker: true) { call in
      call.name == "dispatch" && call.count == 2 ? .signalled(9) : nil
    }
    let harness = try Self.harness(plan)
    let store = harness.store
    // when a run of three increments meets it
    Self.queueTogether([Self.increment, Self.increment, Self.increment], on: store)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    // then nothing is lost: the three went again on a new instance, and the loss, blamed on
    // none of them, is reported once
    #expect(
      Self.losses(harness.events) == [
        .instanceLost(.signalled(9), call: "dispatch", action: nil), .instanceRestarted(sequence: 1),
      ])
    #expect(harness.events.appliedTypes == ["created", "restored", "increment", "increment", "increment"])
    #expect(try store.state() == #"{"clicks":3,"count":3}"#)
    store.stop()
  }
}
