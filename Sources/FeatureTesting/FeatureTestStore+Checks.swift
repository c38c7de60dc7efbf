import FeatureJSON
import HostKit
import Testing

/// The checks and failure messages of the test stores: what a state or an action must be, and how
/// a failure is recorded at the caller's line.
extension FeatureTestStore {
  /// Checks that the plugin applied `entry` (a refusal fails with `refused` and `help`), then the
  /// state after it as `checkState` does. Shared with `FlowTestStore`.
  static func checkApplied(
    _ entry: ActionLog.Entry, refused: String, help: String, named what: String, expected: ExpectedState?,
    check: ((JSONValue) throws -> Void)?, exhaustivity: Exhaustivity, at location: SourceLocation
  ) {
    if let rejection = entry.rejection {
      fail(refused, why: rejection.description, help: help, at: location)
      return
    }
    checkState(of: entry, named: what, expected: expected, check: check, exhaustivity: exhaustivity, at: location)
  }

  /// Checks the state after `entry` against `expected` and `check`; exhaustive, a change neither
  /// names fails. Shared with `FlowTestStore`.
  static func checkState(
    of entry: ActionLog.Entry, named what: String, expected: ExpectedState?, check: ((JSONValue) throws -> Void)?,
    exhaustivity: Exhaustivity, at location: SourceLocation
  ) {
    if entry.reportedChange != entry.changed {
      Self.fail(
        "After \(what), the plugin reported the state as \(entry.reportedChange ? "changed" : "unchanged"), but it \(entry.changed ? "changed" : "did not change")",
        why: "FH_DISPATCH_STATE_CHANGED tells the host when to render again",
        help: "set the flag exactly when the state differs from before", at: location)
    }
    if let expected {
      switch expected.value {
      case .failure(let error):
        Self.fail(
          "Cannot check the state after \(what): \(error.message)", why: "the expectation itself is broken",
          help: "fix it", at: location)
      case .success(let value) where !JSONComparison.equal(value, entry.after):
        Self.fail(
          "The state after \(what) is not the expected one (- expected, + actual):\n\(Self.diff(value, entry.after))",
          why: "the plugin's reducer produced a different state",
          help: "fix the feature, or if the new state is right, expect it", at: location)
      case .success:
        break
      }
    }
    if let check {
      do {
        try check(entry.after)
      } catch {
        Self.fail(
          "The state check after \(what) threw: \(error)", why: "the check closure failed", help: "see the error",
          at: location)
      }
    }
    if expected == nil, check == nil, exhaustivity == .on, entry.changed {
      Self.fail(
        "The state changed after \(what), but the test did not say how (- before, + after):\n\(Self.diff(entry.before, entry.after))",
        why: "an exhaustive test asserts every state change",
        help: "pass assert: with the new state (or a check closure), or use exhaustivity: .off", at: location)
    }
  }

  /// Records that a test let its store go without calling `finish`. TCA's TestStore fails in
  /// deinit only when effects are still running; here the end of every test is explicit.
  static func failForgottenFinish(_ type: String, at location: SourceLocation) {
    fail(
      "The \(type) was released without finish()",
      why: "finish() is where a test checks what is left: emitted actions never received, effects still in flight",
      help: "call `await store.finish()` at the end of the test", at: location)
  }

  /// Records one failure: what happened, why it fails, how to fix it, at the caller's line.
  static func fail(_ what: String, why: String, help: String, at location: SourceLocation) {
    Issue.record(Comment(rawValue: "\(what)\nwhy: \(why)\nhelp: \(help)"), sourceLocation: location)
  }

  static func diff(_ expected: JSONValue, _ actual: JSONValue) -> String {
    JSONComparison.diff(expected: expected, actual: actual)
  }

  static func actionDiff(_ expected: ExpectedAction, _ actual: String) -> String {
    guard case .exactly(let value) = expected.match, let parsed = try? JSONValue.parse(actual),
      value["type"] == parsed["type"]
    else { return "" }
    return " (- expected, + actual):\n\(diff(value, parsed))"
  }

  static func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
  }
}
