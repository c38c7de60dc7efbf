import FeatureJSON
import FeatureKit
import FeatureTesting
import Foundation
import HostKit
import LevelsFeature
import Testing

@Suite("Levels plugin through the host")
struct LevelsPluginTests {
  typealias State = LevelsFeature.State
  typealias Action = LevelsFeature.Action

  /// The actions the plugin emits once `state` is reached with nothing queued, each with the
  /// state right after it, as the host applies them with a zero interval: in order, the feedbacks
  /// of each new state queued behind the actions already waiting.
  static func regulation(from state: State) throws -> [(Action, State)] {
    let feature = LevelsFeature()
    var state = state
    var queue = feature.feedback(state).sent
    var steps: [(Action, State)] = []
    while !queue.isEmpty, steps.count < 100_000 {
      let action = queue.removeFirst()
      let before = state
      _ = try feature.reduce(into: &state, action: action)
      steps.append((action, state))
      if state != before { queue += feature.feedback(state).sent }
    }
    return steps
  }

  /// Receives every step of the regulation from `state`, each action and the state after it.
  static func receiveRegulation(from state: State, in store: FeatureTestStore) async throws {
    for (action, after) in try regulation(from: state) {
      await store.receive(.encoding(action), assert: .encoding(after))
    }
  }

  @Test func fromTenAndTwentyTheRunSettlesAtFifteen() async throws {
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 0])
    #expect(store.initialState == ["left": 10, "right": 20])
    try await Self.receiveRegulation(from: State(left: 10, right: 20), in: store)
    #expect(try store.state == ["left": 15, "right": 15])
    #expect(store.history.filter(\.changed).count == 10)
    await store.finish()
  }

  @Test func thePathIsTheSameWhateverTheInterval() async throws {
    let fast = try await FeatureTestStore(
      plugin: "Levels", config: ["interval": 0], restoring: ["left": 0, "right": 30])
    await fast.skipReceivedActions()
    let paced = try await FeatureTestStore(
      plugin: "Levels", config: ["interval": 2], restoring: ["left": 0, "right": 30])
    await paced.skipReceivedActions()
    #expect(try fast.state == ["left": 15, "right": 15])
    #expect(try paced.state == ["left": 15, "right": 15])
    #expect(fast.history.filter(\.changed).map(\.action) == paced.history.filter(\.changed).map(\.action))
    #expect(fast.history.filter(\.changed).count == 30)
    await fast.finish()
    await paced.finish()
  }

  @Test func aNewRegulationStartsFromTheLevelsTheUserSet() async throws {
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 0])
    await store.skipReceivedActions()
    await store.send("set left=100 right=0", assert: ["left": 100, "right": 0])
    try await Self.receiveRegulation(from: State(left: 100, right: 0), in: store)
    #expect(try store.state == ["left": 50, "right": 50])
    await store.finish()
  }

  @Test func aSetOutOfRangeIsRefusedAndTheStateKept() async throws {
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 0])
    await store.skipReceivedActions()
    await store.send(#"{"type":"set","left":5,"right":2000000}"#, rejectedWith: "must lie between -2000 and 2000")
    #expect(try store.state == ["left": 15, "right": 15])
    await store.finish()
  }

  /// The runaway guard is the store's, so this one drives the `Store` directly.
  @Test func aRegulationLongerThanTheGuardIsPausedAndCanResume() throws {
    let events = EventRecorder()
    let store = try Store(
      plugin: try PluginLoader.load(PluginPaths.library("Levels")), config: #"{"interval":0}"#,
      options: Store.Options(maxFeedbackSteps: 100), observer: events.observer)
    try store.start()
    store.send(#"{"type":"set","left":0,"right":400}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(30)) == .paused)
    #expect(events.pauses.first?.message.contains("has not settled after 100 feedback steps") == true)
    while store.isPaused {
      store.resume()
      _ = store.waitUntilSettled(timeout: .seconds(30))
    }
    #expect(try store.state() == #"{"left":200,"right":200}"#)
    store.stop()
  }

  @Test func stoppingMidRegulationCancelsThePacedStep() async throws {
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 60_000], clock: .manual)
    // Once `created` is applied the first step waits a minute of the manual clock, which nothing
    // moves: a stop that waited for it would never return. The bound only catches that: the time
    // measured includes this task's wait for a thread of the test run's pool, which other tests'
    // blocking waits held for 38 s in one CI run.
    #expect(store.effectsInFlight == 1)
    let started = ContinuousClock.now
    let report = await store.stop()
    #expect(ContinuousClock.now - started < .seconds(300))
    #expect(report == StopReport(unapplied: 0, late: 0))
    #expect(try store.state == ["left": 10, "right": 20])
    await store.finish()
  }
}

@Suite("Effects and the cooperative pool")
struct EffectPoolTests {
  @Test func pacedFeedbacksRunWhileEveryPoolThreadIsBlockedWaitingForThem() async throws {
    // given more stores than the machine has cores, each paced by a timer effect
    let plugin = try PluginLoader.load(PluginPaths.library("Levels"))
    let width = max(8, 2 * ProcessInfo.processInfo.activeProcessorCount)
    let stores = try (0..<width).map { _ in
      try Store(plugin: plugin, config: #"{"interval":1}"#, observer: { _ in })
    }
    for store in stores { try store.start() }
    // when every cooperative-pool thread blocks waiting for one of them
    let results = await withTaskGroup(of: SettleResult.self) { group in
      for store in stores { group.addTask { store.waitUntilSettled(timeout: .seconds(60)) } }
      return await group.reduce(into: []) { $0.append($1) }
    }
    // then the effects still ran: they do not need the pool
    #expect(results == Array(repeating: .settled, count: width))
    for store in stores {
      #expect(store.perform { try? $0.snapshot() } == #"{"left":15,"right":15}"#)
      store.stop()
    }
  }
}
