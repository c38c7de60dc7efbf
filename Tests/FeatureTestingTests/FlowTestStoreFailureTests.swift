import FeatureJSON
import FeatureTesting
import HostKit
import Testing

/// Each way a flow test fails: the exact message FlowTestStore records, and that it points at the
/// caller's line. `withKnownIssue` keeps the recorded issues from failing these tests.
@Suite("FlowTestStore failures")
struct FlowTestStoreFailureTests {
  typealias FailureCase = FeatureTestStoreFailureTests.FailureCase

  /// The main flow over the home menu, counter and levels (one paced step a second).
  static func mainFlow() async throws -> FlowTestStore {
    try await FlowTestStore(plugins: ["Home", "Counter", .plugin("Levels", config: ["interval": 1000])])
  }

  static let cases: [FailureCase] = [
    FailureCase(
      id: "state-differs",
      run: {
        let flow = try await mainFlow()
        await flow.open("counter", stack: ["home", "counter"])
        let line = #line + 1
        await flow.send("increment", assert: ["count": 2, "clicks": 1])
        await flow.finish()
        return [line]
      },
      messages: [
        """
        The state after sending {"type":"increment"} to counter is not the expected one (- expected, + actual):
         {
           "clicks": 1,
        -  "count": 2
        +  "count": 1
         }
        why: the plugin's reducer produced a different state
        help: fix the feature, or if the new state is right, expect it
        """
      ]),
    FailureCase(
      id: "state-change-not-asserted",
      run: {
        let flow = try await mainFlow()
        await flow.open("counter", stack: ["home", "counter"])
        let line = #line + 1
        await flow.send("decrement")
        await flow.finish()
        return [line]
      },
      messages: [
        """
        The state changed after sending {"type":"decrement"} to counter, but the test did not say how (- before, + after):
         {
        -  "clicks": 0,
        -  "count": 0
        +  "clicks": 1,
        +  "count": -1
         }
        why: an exhaustive test asserts every state change
        help: pass assert: with the new state (or a check closure), or use exhaustivity: .off
        """
      ]),
    FailureCase(
      id: "step-never-received",
      run: {
        let flow = try await mainFlow()
        await flow.send("pick entry=counter") { _ in }
        let line = #line + 1
        await flow.finish()
        return [line]
      },
      messages: [
        """
        1 emission never received:
          home: step {"feature":"counter","step":"featurePicked"}
        why: an exhaustive flow test asserts every action and step each feature emits
        help: add receive(...) or receive(step:...) for each, call skipReceivedActions(), or use exhaustivity: .off
        """
      ]),
    FailureCase(
      id: "sent-while-a-step-waits",
      run: {
        let flow = try await mainFlow()
        await flow.send("pick entry=counter") { _ in }
        let line = #line + 1
        await flow.send("increment", assert: ["count": 1, "clicks": 1])
        await flow.skipReceivedActions()
        await flow.finish()
        return [line]
      },
      messages: [
        """
        Sending {"type":"increment"} to counter while 1 emission had not been received:
          home: step {"feature":"counter","step":"featurePicked"}
        why: an exhaustive test asserts every action and step the features emit, in each feature's order
        help: call receive(...) or receive(step:...) for each first, or skipReceivedActions()
        """
      ]),
    FailureCase(
      id: "stack-differs",
      run: {
        let flow = try await mainFlow()
        await flow.send("pick entry=levels") { _ in }
        let line = #line + 1
        await flow.receive(step: "featurePicked", stack: ["home", "counter"])
        await flow.back(stack: ["home"], cancelled: ["levels": 1])
        await flow.finish()
        return [line]
      },
      messages: [
        """
        The stack after step {"feature":"levels","step":"featurePicked"} from home is not the expected one:
          - home > counter
          + home > levels
        why: flow main navigated there
        help: fix the flow, or if the new stack is right, expect it
        """
      ]),
    FailureCase(
      id: "navigation-not-asserted",
      run: {
        let flow = try await mainFlow()
        await flow.send("pick entry=counter") { _ in }
        let line = #line + 1
        await flow.receive(step: "featurePicked")
        await flow.finish()
        return [line]
      },
      messages: [
        """
        The stack changed after step {"feature":"counter","step":"featurePicked"} from home, but the test did not say how:
          + home > counter
        why: an exhaustive flow test asserts every navigation
        help: pass stack: ["home", "counter"], or use exhaustivity: .off
        """
      ]),
    FailureCase(
      id: "cancelled-effect-not-asserted",
      run: {
        let flow = try await mainFlow()
        await flow.open("levels", stack: ["home", "levels"])
        let line = #line + 1
        await flow.back(stack: ["home"])
        await flow.finish()
        return [line]
      },
      messages: [
        """
        :back cancelled effects the test did not assert: ["levels": 1]
        why: popping a feature stops it, cancelling the effects it had in flight
        help: pass cancelled: ["levels": 1], or receive what they deliver before going back
        """
      ]),
    FailureCase(
      id: "received-out-of-order",
      run: {
        let flow = try await mainFlow()
        await flow.open("levels", stack: ["home", "levels"])
        await flow.advance(by: .seconds(1))
        let line = #line + 1
        await flow.receive("decreaseRight", from: "levels", assert: ["left": 10, "right": 19])
        await flow.receive("decreaseRight", from: "levels", assert: ["left": 11, "right": 19])
        await flow.back(stack: ["home"], cancelled: ["levels": 1])
        await flow.finish()
        return [line]
      },
      messages: [
        """
        Expected to receive an action of type 'decreaseRight' from levels, but the next emitted was:
          levels: {"type":"increaseLeft"}
        why: each feature's actions and steps are received in the order it emitted them
        help: receive them in that order (name the feature with from:), or fix the feature
        """
      ]),
    FailureCase(
      id: "nothing-before-the-clock-moves",
      run: {
        let flow = try await mainFlow()
        await flow.open("levels", stack: ["home", "levels"])
        let line = #line + 1
        await flow.receive("increaseLeft", from: "levels", assert: ["left": 11, "right": 20])
        await flow.back(stack: ["home"], cancelled: ["levels": 1])
        await flow.finish()
        return [line]
      },
      messages: [
        """
        Expected to receive an action of type 'increaseLeft' from levels, but nothing more was emitted
        why: the flow settled: nothing queued, no effect in flight but 1 timer on the manual clock
        help: advance(by:) to fire the timers first
        """
      ]),
    FailureCase(
      id: "timer-left-at-finish",
      run: {
        let flow = try await mainFlow()
        await flow.open("levels", stack: ["home", "levels"])
        let line = #line + 1
        await flow.finish()
        return [line]
      },
      messages: [
        """
        1 timer still waiting on the manual clock at the end of the test
        why: an exhaustive test ends only once every effect has finished
        help: advance(by:) and receive what they deliver, pop the feature (back(cancelled:)), or use exhaustivity: .off
        """
      ]),
    FailureCase(
      id: "back-from-the-first-feature",
      run: {
        let flow = try await mainFlow()
        let line = #line + 1
        await flow.back(stack: [])
        await flow.finish()
        return [line]
      },
      messages: [
        """
        :back failed: already at the first feature; there is nothing to go back to
        why: the coordinator refused it; the stack is home
        help: leaving ends the run
        """
      ]),
    FailureCase(
      id: "flow-store-without-finish",
      run: {
        let line = #line + 1
        let flow = try await FlowTestStore(plugins: ["Home", "Counter"])
        #expect(flow.stack == ["home"])
        return [line]
      },
      messages: [
        """
        The FlowTestStore was released without finish()
        why: finish() is where a test checks what is left: emitted actions never received, effects still in flight
        help: call `await store.finish()` at the end of the test
        """
      ]),
    FailureCase(
      id: "feature-store-without-finish",
      run: {
        let line = #line + 1
        let store = try await FeatureTestStore(plugin: "Counter")
        await store.send("increment", assert: ["count": 1, "clicks": 1])
        return [line]
      },
      messages: [
        """
        The FeatureTestStore was released without finish()
        why: finish() is where a test checks what is left: emitted actions never received, effects still in flight
        help: call `await store.finish()` at the end of the test
        """
      ]),
  ]

  @Test("each failure is recorded once, with its message, at the caller's line", arguments: cases)
  func failureIsRecorded(_ failure: FailureCase) async {
    let (issues, lines) = await FeatureTestStoreFailureTests.issues(of: failure.run)
    #expect(issues.map(\.text) == failure.messages)
    #expect(issues.map(\.line) == lines.map { Optional($0) })
  }
}
