import HostKit
import Testing

extension FlowTestStore {
  /// Checks what the flow made of a step or a command against the test's `stack`, `cancelled`
  /// and `ignored`; exhaustive, a navigation or a cancellation the test did not name fails.
  func checkNavigation(
    _ outcome: FlowLauncher.Outcome, after what: String, stack expected: [FlowFrame]?, cancelled: [String: Int]?,
    ignored: Bool, at location: SourceLocation
  ) {
    switch outcome {
    case .ignored(let note):
      if !ignored {
        fail(
          "The flow moved nothing after \(what)", why: note,
          help: "fix the flow or the step, or if that is right, pass ignored: true", at: location)
      }
    case .navigated(let actual, let retired):
      if ignored {
        fail(
          "Expected the flow to ignore \(what), but it navigated to \(actual.line)",
          why: "flow \(flow.name) has a rule for it", help: "drop ignored: true and assert stack:", at: location)
      }
      if let expected, expected != actual {
        fail(
          "The stack after \(what) is not the expected one:\n  - \(expected.line)\n  + \(actual.line)",
          why: "flow \(flow.name) navigated there", help: "fix the flow, or if the new stack is right, expect it",
          at: location)
      } else if expected == nil, exhaustivity == .on {
        fail(
          "The stack changed after \(what), but the test did not say how:\n  + \(actual.line)",
          why: "an exhaustive flow test asserts every navigation",
          help: "pass stack: \(actual.literal), or use exhaustivity: .off", at: location)
      }
      var effects: [String: Int] = [:]
      for retirement in retired where retirement.effects > 0 {
        effects[retirement.id, default: 0] += retirement.effects
      }
      if let cancelled, cancelled.filter({ $0.value > 0 }) != effects {
        fail(
          "The effects cancelled by \(what) are not the expected ones:\n  - \(Self.describe(cancelled))\n  + \(Self.describe(effects))",
          why: "popping a feature stops it, cancelling the effects it had in flight",
          help: "expect what was in flight, or let the effects finish (receive) before going back", at: location)
      } else if cancelled == nil, !effects.isEmpty, exhaustivity == .on {
        fail(
          "\(what.prefix(1).uppercased() + what.dropFirst()) cancelled effects the test did not assert: \(Self.describe(effects))",
          why: "popping a feature stops it, cancelling the effects it had in flight",
          help: "pass cancelled: \(Self.describe(effects)), or receive what they deliver before going back",
          at: location)
      }
    }
  }

  private static func describe(_ effects: [String: Int]) -> String {
    let named = effects.filter { $0.value > 0 }.sorted { $0.key < $1.key }
    return named.isEmpty ? "[:]" : "[" + named.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "]"
  }
}
