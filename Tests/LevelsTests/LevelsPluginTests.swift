import FeatureJSON
import FeatureTesting
import HostKit
import Foundation
import Synchronization
import Testing

@Suite("Levels plugin through the host")
struct LevelsPluginTests {
  /// Records the states after each change, read through snapshot on the store thread.
  final class Trace: Sendable {
    let changes = Mutex<[String]>([])
    let rejections = Mutex<[String]>([])
    let pauses = Mutex<[String]>([])
  }

  func run(config: String, then actions: [String] = [], maxSteps: Int = 10_000) throws -> (Store, Trace) {
    let trace = Trace()
    let store = try Store(
      plugin: try PluginLoader.load(PluginPaths.library("Levels")), config: config,
      options: Store.Options(maxFeedbackSteps: maxSteps)
    ) { event in
      switch event {
      case .applied(_, let action, _, true): trace.changes.withLock { $0.append(action) }
      case .rejected(_, _, let error): trace.rejections.withLock { $0.append(error.message) }
      case .paused(let error): trace.pauses.withLock { $0.append(error.message) }
      default: break
      }
    }
    try store.start()
    for action in actions { store.send(action, source: .user) }
    return (store, trace)
  }

  func state(_ store: Store) throws -> String {
    try store.perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }.get()
  }

  @Test func fromTenAndTwentyTheRunSettlesAtFifteen() throws {
    let (store, trace) = try run(config: #"{"interval":0}"#)
    #expect(store.waitUntilSettled(timeout: .seconds(30)) == .settled)
    #expect(try state(store) == #"{"left":15,"right":15}"#)
    #expect(trace.changes.withLock { $0.count } == 10)
    store.stop()
  }

  @Test func thePathIsTheSameWhateverTheInterval() throws {
    // Each first settles from 10/20, so the new regulation starts from the same state in both.
    let (fast, fastTrace) = try run(config: #"{"interval":0}"#)
    #expect(fast.waitUntilSettled(timeout: .seconds(30)) == .settled)
    let (paced, pacedTrace) = try run(config: #"{"interval":2}"#)
    #expect(paced.waitUntilSettled(timeout: .seconds(30)) == .settled)
    for store in [fast, paced] {
      store.send(#"{"type":"set","left":0,"right":30}"#, source: .user)
      #expect(store.waitUntilSettled(timeout: .seconds(30)) == .settled)
    }
    #expect(try state(fast) == #"{"left":15,"right":15}"#)
    #expect(try state(paced) == #"{"left":15,"right":15}"#)
    #expect(fastTrace.changes.withLock { $0 } == pacedTrace.changes.withLock { $0 })
    fast.stop()
    paced.stop()
  }

  @Test func aNewRegulationStartsFromTheLevelsTheUserSet() throws {
    let (store, _) = try run(config: #"{"interval":0}"#, then: [#"{"type":"set","left":100,"right":0}"#])
    #expect(store.waitUntilSettled(timeout: .seconds(30)) == .settled)
    #expect(try state(store) == #"{"left":50,"right":50}"#)
    store.stop()
  }

  @Test func aSetOutOfRangeIsRefusedAndTheStateKept() throws {
    let (store, trace) = try run(config: #"{"interval":0}"#, then: [#"{"type":"set","left":5,"right":2000000}"#])
    #expect(store.waitUntilSettled(timeout: .seconds(30)) == .settled)
    #expect(try state(store) == #"{"left":15,"right":15}"#)
    #expect(trace.rejections.withLock { $0 }.first?.contains("must lie between -1000000 and 1000000") == true)
    store.stop()
  }

  @Test func aRegulationLongerThanTheGuardIsPausedAndCanResume() throws {
    let (store, trace) = try run(
      config: #"{"interval":0}"#, then: [#"{"type":"set","left":0,"right":400}"#], maxSteps: 100)
    #expect(store.waitUntilSettled(timeout: .seconds(30)) == .paused)
    #expect(trace.pauses.withLock { $0 }.first?.contains("has not settled after 100 feedback steps") == true)
    while store.isPaused {
      store.resume()
      _ = store.waitUntilSettled(timeout: .seconds(30))
    }
    #expect(try state(store) == #"{"left":200,"right":200}"#)
    store.stop()
  }

  @Test func stoppingMidRegulationCancelsThePacedStep() throws {
    let (store, _) = try run(config: #"{"interval":60000}"#)
    // Once `created` is applied the first step waits a minute; stop must not wait for it.
    store.perform { _ in }
    #expect(store.effectsRunning == 1)
    let started = ContinuousClock.now
    let report = store.stop()
    #expect(ContinuousClock.now - started < .seconds(30))
    #expect(report == StopReport(unapplied: 0, late: 0))
    #expect(try state(store) == #"{"left":10,"right":20}"#)
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
