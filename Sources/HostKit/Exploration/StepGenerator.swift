import FeatureJSON

/// Draws exploration steps from a feature's catalogue: every action, each argument from the
/// values `host validate` tries (typical ones, then the numbers and words of its help) plus edge
/// values around them; and, between actions, host events.
public struct StepGenerator: Sendable {
  /// The host events drawn between actions, as typed.
  public enum Event: Sendable, Equatable {
    case undo, redo, gotoEarlier, reload
  }

  private let actions: [ActionSpec]
  private let values: [String: [String: [JSONValue]]]
  /// The events drawn, and how often one is drawn instead of an action (per thousand).
  private let events: [Event]
  /// The events but reloads (drawn at every step: not filtered out each time).
  private let travels: [Event]
  private let eventsPerThousand: Int
  static let reloadsPerThousand = 3

  public init(manifest: Manifest, events: [Event] = [.undo, .redo, .gotoEarlier], eventsPerThousand: Int = 60) {
    actions = manifest.actions
    var values: [String: [String: [JSONValue]]] = [:]
    for action in manifest.actions {
      for argument in action.arguments { values[action.type, default: [:]][argument.name] = Self.values(argument) }
    }
    self.values = values
    self.events = events
    travels = events.filter { $0 != .reload }
    self.eventsPerThousand = events.isEmpty ? 0 : eventsPerThousand
  }

  /// Whether the catalogue has anything to send.
  public var isEmpty: Bool { actions.isEmpty }

  /// The next step; `seqs` is how many actions the run has journaled (for `:goto`).
  public func next(using random: inout SeededRandom, seqs: Int) -> ExploreStep {
    let roll = Int.random(in: 0..<1000, using: &random)
    // A reload starts a worker (milliseconds): rarer than the travels, which cost a few calls.
    if events.contains(.reload) && roll < Self.reloadsPerThousand { return .command(":reload") }
    if !travels.isEmpty, roll < Self.reloadsPerThousand + eventsPerThousand {
      switch travels[Int.random(in: 0..<travels.count, using: &random)] {
      case .undo: return .command(":undo")
      case .redo: return .command(":redo")
      case .reload: return .command(":reload")
      case .gotoEarlier where seqs > 1: return .command(":goto \(Int.random(in: 1..<seqs, using: &random))")
      case .gotoEarlier: return .command(":undo")
      }
    }
    let action = actions[Int.random(in: 0..<actions.count, using: &random)]
    var arguments: [ExploreStep.Argument] = []
    for argument in action.arguments {
      // An optional argument is left out now and then.
      if !argument.required && Bool.random(using: &random) { continue }
      let list = values[action.type]?[argument.name] ?? [.null]
      arguments.append(.init(name: argument.name, value: list[Int.random(in: 0..<list.count, using: &random)]))
    }
    return .action(type: action.type, arguments: arguments)
  }

  /// The values drawn for `argument`: the validator's, then the edges around each number it
  /// names (one past each bound) and the extremes of its kind.
  static func values(_ argument: ArgumentSpec) -> [JSONValue] {
    var values = ActionSamples.values(for: argument)
    switch argument.kind {
    case .integer:
      let named = ActionSamples.numbers(in: argument.help).compactMap { Int64(exactly: $0) }
      values += named.flatMap { [$0 &- 1, $0 &+ 1] }.map { .number(.int($0)) }
      values += [Int64(Int32.max), Int64(Int32.min)].map { .number(.int($0)) }
    case .number:
      values += ActionSamples.numbers(in: argument.help).flatMap { [$0 - 0.5, $0 + 0.5] }.map { .number(.double($0)) }
      values += [1e300, -1e300].map { .number(.double($0)) }
    case .string:
      values += ["", "ü漢字", String(repeating: "x", count: 300), "two words", "\"quoted\"\\"].map { .string($0) }
    case .boolean:
      break
    }
    var seen = Set<JSONValue>()
    return values.filter { seen.insert($0).inserted }
  }

  /// Simpler versions of `step`, simplest first: each argument in turn replaced by a value
  /// earlier in its list (the typical values come first) or left out when optional.
  public func simpler(_ step: ExploreStep) -> [ExploreStep] {
    guard case .action(let type, let arguments) = step,
      let action = actions.first(where: { $0.type == type })
    else { return [] }
    var found: [ExploreStep] = []
    for (index, argument) in arguments.enumerated() {
      if let spec = action.arguments.first(where: { $0.name == argument.name }), !spec.required {
        var fewer = arguments
        fewer.remove(at: index)
        found.append(.action(type: type, arguments: fewer))
      }
      let list = values[type]?[argument.name] ?? []
      guard let position = list.firstIndex(of: argument.value) else { continue }
      for simpler in list[..<position] {
        var changed = arguments
        changed[index].value = simpler
        found.append(.action(type: type, arguments: changed))
      }
    }
    return found
  }
}
