import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import Testing

/// The harness with the plugin in a worker process, as `host run` runs it: the same tests pass.
@Suite("FeatureTestStore isolated")
struct FeatureTestStoreIsolationTests {
  @Test func anIsolatedCounterAppliesAndRefusesAsInProcess() async throws {
    let store = try await FeatureTestStore(plugin: "Counter", isolation: .process())
    await store.send("increment", assert: ["clicks": 1, "count": 1])
    await store.send(#"{"type":"decrement"}"#, assert: ["clicks": 2, "count": 0])
    await store.send(#"{"type":"explode"}"#, rejectedWith: "explode")
    #expect(try store.view == "Counter\n  count:  0\n  clicks: 2")
    await store.finish()
  }

  @Test func isolatedKittensReceivesThePageItsEffectLoaded() async throws {
    // given a catalog of five in a file, two per page
    let store = try await FeatureTestStore(
      plugin: "Kittens", config: ["endpoint": .string("file://\(FeatureTestStoreTests.catalog)"), "limit": 2],
      isolation: .process())
    // then the first page arrives from the load effect, through the worker's socket
    await store.receive("pageLoaded") { state in #expect(state["urls"]?.arrayValue?.count == 2) }
    await store.send("loadMore") { state in #expect(state["loadingOffset"] == 2) }
    await store.receive("pageLoaded") { state in #expect(state["urls"]?.arrayValue?.count == 4) }
    await store.finish()
  }

  @Test func isolatedPacedLevelsGetTheirTimersFromTheHost() async throws {
    // given paced levels whose timers the worker schedules through the host; the interval is
    // longer than any stall of a loaded machine between a step's two actions (with 50 ms, the
    // step the first one schedules fired before the second one cancelled it, in a loaded suite)
    let store = try await FeatureTestStore(
      plugin: "Levels", config: ["interval": 500], restoring: ["left": 3, "right": 3], isolation: .process())
    await store.send("set left=0 right=2", assert: ["left": 0, "right": 2])
    await store.receive("increaseLeft", assert: ["left": 1, "right": 2])
    await store.receive("decreaseRight", assert: ["left": 1, "right": 1])
    await store.finish()
  }
}
