import CounterFeature
import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import KittensFeature
import Testing

/// The harness on the real plugins, where everything goes as expected: no issue is recorded.
@Suite("FeatureTestStore")
struct FeatureTestStoreTests {
  static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Transcripts/kittens-catalog.json").path

  static func cat(_ id: String) -> JSONValue { .string("https://cdn2.thecatapi.com/images/\(id).jpg") }

  @Test func everyWayOfWritingAnActionAndAStateAssertsTheSameCounter() async throws {
    // given a counter, started fresh
    let store = try await FeatureTestStore(plugin: "Counter")
    #expect(store.initialState == ["clicks": 0, "count": 0])
    // when actions are typed, written as JSON, as a literal or encoded; then the state is checked
    await store.send("increment", assert: #"{"clicks":1,"count":1}"#)
    await store.send(#"{"type":"increment"}"#, assert: ["count": 2, "clicks": 2])
    await store.send(["type": "decrement"], assert: .encoding(CounterFeature.State(count: 1, clicks: 3)))
    await store.send(.encoding(CounterFeature.Action.decrement)) { state in
      #expect(state["count"] == 0)
      #expect(state["clicks"] == 4)
    }
    // then
    #expect(try store.state == ["clicks": 4, "count": 0])
    #expect(try store.view == "Counter\n  count:  0\n  clicks: 4")
    await store.finish()
  }

  @Test func aRestoredCounterStartsFromItsStateAndIsRefusedBadActions() async throws {
    let store = try await FeatureTestStore(
      plugin: PluginPaths.library("Counter"), restoring: ["clicks": 9, "count": -3])
    #expect(store.initialState == ["clicks": 9, "count": -3])
    await store.send(#"{"type":"explode"}"#, rejectedWith: "explode")
    await store.send(.json(#"{"type":"increment""#), rejectedWith: "not valid JSON")
    await store.finish()
  }

  @Test func kittensLoadsEachPageFromAFileCatalogAndTheTestReceivesIt() async throws {
    // given a catalog of five in a file, two per page
    let store = try await FeatureTestStore(
      plugin: "Kittens", config: ["endpoint": .string("file://\(Self.catalog)"), "limit": 2])
    #expect(store.initialState["isLoading"] == true)
    // then the first page arrives from the load effect `created` started
    await store.receive(
      ["type": "pageLoaded", "offset": 0, "urls": [Self.cat("AGD"), Self.cat("l3s")]],
      assert: .encoding(
        KittensFeature.State(urls: [
          "https://cdn2.thecatapi.com/images/AGD.jpg", "https://cdn2.thecatapi.com/images/l3s.jpg",
        ])
      ))
    // when the person asks for more
    await store.send("loadMore") { state in
      #expect(state["isLoading"] == true)
      #expect(state["loadingOffset"] == 2)
    }
    await store.receive("pageLoaded") { state in #expect(state["urls"]?.arrayValue?.count == 4) }
    await store.send("loadMore") { state in #expect(state["loadingOffset"] == 4) }
    await store.receive(
      .encoding(KittensFeature.Action.pageLoaded(offset: 4, urls: ["https://cdn2.thecatapi.com/images/NDx.jpg"]))
    ) {
      state in
      #expect(state["endReached"] == true)
    }
    // and at the end nothing is in flight
    await store.finish()
  }

  /// Levels restored at `restoring`, regulated from 0 and 2 with `config`, and the feedback steps
  /// the test must receive, each with the state after it.
  struct Regulation: CustomTestStringConvertible, Sendable {
    let id: String
    let config: JSONValue
    let restoring: JSONValue
    let steps: [(action: ExpectedAction, state: ExpectedState)]
    var testDescription: String { id }
  }

  static let regulations = [
    // levels that already met, with no pause between steps: left rises, right falls, and the steps
    // asked for by older states change nothing
    Regulation(
      id: "full-speed", config: ["interval": 0], restoring: ["left": 1, "right": 1],
      steps: [
        ("increaseLeft", ["left": 1, "right": 2]), ("decreaseRight", ["left": 1, "right": 1]),
        ("increaseLeft", ["left": 1, "right": 1]), ("decreaseRight", ["left": 1, "right": 1]),
      ]),
    // the real pause between steps (a timer effect in the plugin), without sleeping: each paced
    // step arrives in turn, both feedbacks' actions together (the interval outlasts a loaded
    // machine's stall between a step's two actions, which let the first one's step fire)
    Regulation(
      id: "paced", config: ["interval": 500], restoring: ["left": 3, "right": 3],
      steps: [("increaseLeft", ["left": 1, "right": 2]), ("decreaseRight", ["left": 1, "right": 1])]),
  ]

  @Test("levels emit each feedback step for the test to receive", arguments: regulations)
  func levelsEmitEachFeedbackStepForTheTestToReceive(_ regulation: Regulation) async throws {
    // given levels, at full speed or paced
    let store = try await FeatureTestStore(plugin: "Levels", config: regulation.config, restoring: regulation.restoring)
    // when a regulation from 0 and 2 starts: both feedbacks ask for a step
    await store.send("set left=0 right=2", assert: ["left": 0, "right": 2])
    // then the steps arrive in turn, each with its state
    for step in regulation.steps {
      await store.receive(step.action, assert: step.state)
    }
    await store.finish()
  }

  @Test func aNonExhaustiveStoreChecksOnlyWhatTheTestNames() async throws {
    let store = try await FeatureTestStore(
      plugin: "Levels", config: ["interval": 0], restoring: ["left": 15, "right": 15], exhaustivity: .off)
    // an unasserted change is fine
    await store.send("set left=0 right=30")
    // receive skips the actions it is not asked about (the first increaseLeft)
    await store.receive("decreaseRight", assert: ["left": 1, "right": 29])
    #expect(await store.settle() == .settled)
    #expect(try store.state == ["left": 15, "right": 15])
    // and so is sending while emitted actions were not received, and leaving them at the end
    await store.send("set left=4 right=4", assert: ["left": 4, "right": 4])
    await store.finish()
  }

  @Test func skippingReceivedActionsLetsAnExhaustiveTestAssertOnlyTheEnd() async throws {
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 0])
    await store.skipReceivedActions()
    #expect(try store.state == ["left": 15, "right": 15])
    await store.finish()
  }

  @Test func stopCancelsAPacedStepAndFinishAcceptsIt() async throws {
    // given a step that waits a minute
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 60_000], clock: .manual)
    #expect(store.effectsInFlight == 1)
    // when
    let report = await store.stop()
    // then
    #expect(report == StopReport(unapplied: 0, late: 0))
    #expect(try store.state == ["left": 10, "right": 20])
    await store.finish()
  }
}
