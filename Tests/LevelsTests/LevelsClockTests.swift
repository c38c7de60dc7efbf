import FeatureTesting
import HostKit
import Testing

/// Levels paces itself on the host's clock (`fh.clock/1`); under a manual clock a test moves time
/// instead of waiting for it.
@Suite("Levels on a manual clock")
struct LevelsClockTests {
  @Test func eachStepWaitsForTheIntervalAndOnlyTheClockMovesIt() async throws {
    // given levels paced at one step a minute, on a clock that stands still
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 60_000], clock: .manual)
    #expect(store.pendingTimers == 1)
    // when the clock moves to just before the step, nothing happens
    await store.advance(by: .seconds(59))
    #expect(try store.state == ["left": 10, "right": 20])
    #expect(store.pendingTimers == 1)
    // then each minute moves both levels one step, until they meet
    var left = 10
    var right = 20
    await store.advance(by: .seconds(1))
    while left < right {
      left += 1
      await store.receive(
        ["type": "increaseLeft"], assert: ["left": .number(.int(Int64(left))), "right": .number(.int(Int64(right)))])
      right -= 1
      await store.receive(
        ["type": "decreaseRight"], assert: ["left": .number(.int(Int64(left))), "right": .number(.int(Int64(right)))])
      if left < right { await store.advance(by: .seconds(60)) }
    }
    #expect(try store.state == ["left": 15, "right": 15])
    #expect(store.pendingTimers == 0)
    await store.finish()
  }

  @Test func aNewStateReplacesTheStepStillWaiting() async throws {
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 1000], clock: .manual)
    await store.advance(by: .milliseconds(500))
    // the user starts a new regulation half-way through the wait: only its step is pending
    await store.send("set left=0 right=2", assert: ["left": 0, "right": 2])
    #expect(store.pendingTimers == 1)
    await store.advance(by: .milliseconds(500))
    #expect(try store.state == ["left": 0, "right": 2])
    await store.advance(by: .milliseconds(500))
    await store.receive(["type": "increaseLeft"], assert: ["left": 1, "right": 2])
    await store.receive(["type": "decreaseRight"], assert: ["left": 1, "right": 1])
    #expect(store.pendingTimers == 0)
    await store.finish()
  }

  @Test func stoppingCancelsThePendingStep() async throws {
    let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 1000], clock: .manual)
    #expect(store.pendingTimers == 1)
    let report = await store.stop()
    #expect(report == StopReport(unapplied: 0, late: 0))
    #expect(store.pendingTimers == 0)
    await store.finish()
  }
}
