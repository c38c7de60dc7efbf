import FeatureJSON
import FeatureTesting
import HostKit
import Synchronization
import Testing

/// Each way a test using the harness fails: the exact message it records, and that it points at
/// the caller's line. `withKnownIssue` keeps the recorded issues from failing these tests.
@Suite("FeatureTestStore failures")
struct FeatureTestStoreFailureTests {
  struct RecordedIssue: Sendable, Equatable {
    var text: String
    var line: Int?
  }

  struct FailureCase: CustomTestStringConvertible, Sendable {
    let id: String
    /// Drives a store into the failure; returns the line of each call expected to record one.
    let run: @Sendable () async throws -> [Int]
    /// The message of each recorded issue, in order.
    let messages: [String]
    var testDescription: String { id }
  }

  /// Runs `body`, recording the issues it raises instead of failing the test with them.
  static func issues(of body: @Sendable () async throws -> [Int]) async -> (issues: [RecordedIssue], lines: [Int]) {
    let recorded = Mutex<[RecordedIssue]>([])
    let lines = Mutex<[Int]>([])
    await withKnownIssue {
      do {
        let expected = try await body()
        lines.withLock { $0 = expected }
      } catch {
        Issue.record(error)
      }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined(separator: "\n")
      recorded.withLock { $0.append(RecordedIssue(text: text, line: issue.sourceLocation?.line)) }
      return true
    }
    return (recorded.withLock { $0 }, lines.withLock { $0 })
  }

  static let cases: [FailureCase] = [
    FailureCase(
      id: "state-differs",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send("increment", assert: ["count": 2, "clicks": 1])
        await store.finish()
        return [line]
      },
      messages: [
        """
        The state after sending {"type":"increment"} is not the expected one (- expected, + actual):
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
      id: "change-not-asserted",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send("decrement")
        await store.finish()
        return [line]
      },
      messages: [
        """
        The state changed after sending {"type":"decrement"}, but the test did not say how (- before, + after):
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
      id: "action-refused",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send(#"{"type":"explode"}"#)
        await store.finish()
        return [line]
      },
      messages: [
        """
        The plugin refused {"type":"explode"}
        why: action 'explode' of counter was refused: type: unknown "type" "explode" for Action
        help: fix the action, or assert the refusal with send(_:rejectedWith:)
        """
      ]),
    FailureCase(
      id: "refusal-expected",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send("increment", rejectedWith: "too many")
        await store.finish()
        return [line]
      },
      messages: [
        """
        Expected the plugin to refuse {"type":"increment"}, but it applied it
        why: the state changed:
         {
        -  "clicks": 0,
        -  "count": 0
        +  "clicks": 1,
        +  "count": 1
         }
        help: check the reducer's validation, or send the action with send(_:assert:)
        """
      ]),
    FailureCase(
      id: "refused-for-another-reason",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send(#"{"type":"explode"}"#, rejectedWith: "overflow")
        await store.finish()
        return [line]
      },
      messages: [
        """
        The plugin refused {"type":"explode"} for another reason than expected
        why: its message "action 'explode' of counter was refused: type: unknown "type" "explode" for Action" does not contain "overflow"
        help: change rejectedWith: to a part of the message above
        """
      ]),
    FailureCase(
      id: "typed-line-unknown",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send("incremnt", assert: ["count": 1, "clicks": 1])
        await store.finish()
        return [line]
      },
      messages: [
        """
        Cannot send 'incremnt'
        why: unknown action 'incremnt' for counter
        help: did you mean 'increment'? actions: increment, decrement
        """
      ]),
    FailureCase(
      id: "expected-state-not-json",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send("increment", assert: #"{"count":1,"#)
        await store.finish()
        return [line]
      },
      messages: [
        """
        Cannot check the state after sending {"type":"increment"}: the expected state is not valid JSON: \
        invalid JSON at byte 11: unexpected end of input, expected '"' to start an object key
        why: the expectation itself is broken
        help: fix it
        """
      ]),
    FailureCase(
      id: "state-check-throws",
      run: {
        struct Unexpected: Error {}
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.send("increment") { _ in throw Unexpected() }
        await store.finish()
        return [line]
      },
      messages: [
        """
        The state check after sending {"type":"increment"} threw: Unexpected()
        why: the check closure failed
        help: see the error
        """
      ]),
    FailureCase(
      id: "sent-after-stop",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        await store.stop()
        let line = #line + 1
        await store.send("increment", assert: ["count": 1, "clicks": 1])
        await store.finish()
        return [line]
      },
      messages: [
        """
        Cannot send {"type":"increment"}: the store was stopped
        why: a stopped instance applies no action
        help: send before stop() or finish()
        """
      ]),
    FailureCase(
      id: "sent-before-receiving",
      run: {
        let store = try await FeatureTestStore(
          plugin: "Levels", config: ["interval": 0], restoring: ["left": 1, "right": 1])
        await store.send("set left=0 right=2", assert: ["left": 0, "right": 2])
        _ = await store.settle()
        let line = #line + 1
        await store.send("set left=4 right=4", assert: ["left": 4, "right": 4])
        await store.skipReceivedActions()
        await store.finish()
        return [line]
      },
      messages: [
        """
        Sent {"left":4,"right":4,"type":"set"} while 4 emitted actions had not been received:
          {"type":"increaseLeft"}
          {"type":"decreaseRight"}
          {"type":"increaseLeft"}
          {"type":"decreaseRight"}
        why: an exhaustive test asserts every action the plugin emits, in order
        help: call receive(...) for each before sending, or skipReceivedActions()
        """
      ]),
    FailureCase(
      id: "received-another-action",
      run: {
        let store = try await FeatureTestStore(
          plugin: "Levels", config: ["interval": 0], restoring: ["left": 1, "right": 1])
        await store.send("set left=0 right=2", assert: ["left": 0, "right": 2])
        let line = #line + 1
        await store.receive("decreaseRight", assert: ["left": 0, "right": 1])
        await store.skipReceivedActions()
        await store.finish()
        return [line]
      },
      messages: [
        """
        Received {"type":"increaseLeft"}, but expected an action of type 'decreaseRight'
        why: the plugin emitted its actions in this order
        help: receive the actions in the order the plugin emits them, or fix the feature
        """
      ]),
    FailureCase(
      id: "received-action-differs",
      run: {
        let store = try await FeatureTestStore(
          plugin: "Levels", config: ["interval": 0], restoring: ["left": 1, "right": 1])
        await store.send("set left=0 right=2", assert: ["left": 0, "right": 2])
        let line = #line + 1
        await store.receive(["type": "increaseLeft", "by": 1], assert: ["left": 1, "right": 2])
        await store.skipReceivedActions()
        await store.finish()
        return [line]
      },
      messages: [
        """
        Received {"type":"increaseLeft"}, but expected {"by":1,"type":"increaseLeft"} (- expected, + actual):
         {
        -  "by": 1,
           "type": "increaseLeft"
         }
        why: the plugin emitted its actions in this order
        help: receive the actions in the order the plugin emits them, or fix the feature
        """
      ]),
    FailureCase(
      id: "nothing-more-to-receive",
      run: {
        let store = try await FeatureTestStore(plugin: "Counter")
        let line = #line + 1
        await store.receive("increment")
        await store.finish()
        return [line]
      },
      messages: [
        """
        Expected to receive an action of type 'increment', but the plugin emitted nothing more
        why: the store settled: nothing queued and no effect in flight
        help: remove this receive, or check that the action before it starts the effect
        """
      ]),
    FailureCase(
      id: "receive-timed-out",
      run: {
        let store = try await FeatureTestStore(
          plugin: "Levels", config: ["interval": 60_000], timeout: .milliseconds(300), clock: .manual)
        let line = #line + 1
        await store.receive("increaseLeft")
        await store.stop()
        await store.finish()
        return [line]
      },
      messages: [
        """
        Expected to receive an action of type 'increaseLeft', but nothing arrived within 0.3 seconds
        why: 1 effect still in flight
        help: point the effect at a fake that answers (config), or raise timeout:
        """
      ]),
    FailureCase(
      id: "emitted-never-received",
      run: {
        let store = try await FeatureTestStore(
          plugin: "Levels", config: ["interval": 0], restoring: ["left": 1, "right": 1])
        await store.send("set left=0 right=2", assert: ["left": 0, "right": 2])
        let line = #line + 1
        await store.finish()
        return [line]
      },
      messages: [
        """
        4 actions the plugin emitted were never received:
          {"type":"increaseLeft"}
          {"type":"decreaseRight"}
          {"type":"increaseLeft"}
          {"type":"decreaseRight"}
        why: an exhaustive test asserts every action the plugin emits
        help: add receive(...) for each, call skipReceivedActions(), or use exhaustivity: .off
        """
      ]),
    FailureCase(
      id: "effect-in-flight-at-the-end",
      run: {
        let store = try await FeatureTestStore(plugin: "Levels", config: ["interval": 60_000], clock: .manual)
        let line = #line + 1
        await store.finish(timeout: .milliseconds(200))
        return [line]
      },
      messages: [
        """
        1 effect still in flight at the end of the test (waited 0.2 seconds)
        why: an exhaustive test ends only once every effect has finished
        help: receive what it emits, call stop() to cancel it (and assert that), or use exhaustivity: .off
        """
      ]),
    FailureCase(
      id: "runaway-feedback-paused",
      run: {
        let store = try await FeatureTestStore(
          plugin: "Levels", config: ["interval": 0], restoring: ["left": 0, "right": 1000], maxFeedbackSteps: 50)
        let skip = #line + 1
        await store.skipReceivedActions()
        let finish = #line + 1
        await store.finish()
        return [skip, finish]
      },
      messages: [
        """
        The store did not settle before skipping received actions (paused)
        why: actions may still arrive after the skip
        help: raise timeout:, or stop() first
        """,
        """
        The runaway guard paused the store before the end of the test
        why: a feedback loop did not settle within maxFeedbackSteps
        help: fix the feedback, raise maxFeedbackSteps:, or use exhaustivity: .off
        """,
      ]),
  ]

  @Test("each failure is recorded once, with its message, at the caller's line", arguments: cases)
  func failureIsRecorded(_ failure: FailureCase) async {
    let (issues, lines) = await Self.issues(of: failure.run)
    #expect(issues.map(\.text) == failure.messages)
    #expect(issues.map(\.line) == lines.map { Optional($0) })
  }

  @Test func aPluginThatCannotBeLoadedThrowsWithTheFileNamed() async {
    let error = await #expect(throws: PluginLoadError.self) {
      _ = try await FeatureTestStore(plugin: "/nonexistent/libNothing.so")
    }
    #expect(error?.message.hasPrefix("'/nonexistent/libNothing.so' is not a loadable shared library") == true)
  }

  @Test func aConfigThePluginRefusesThrows() async {
    let error = await #expect(throws: HostError.self) {
      _ = try await FeatureTestStore(plugin: "Levels", config: ["interval": -1])
    }
    #expect(error?.message.contains("interval -1 must be between 0 and 60000 milliseconds") == true)
  }
}
