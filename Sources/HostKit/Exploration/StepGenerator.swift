import FeatureJSON

/// Draws exploration steps from a feature's catalogue: every action, each argument from the
/// values `host validate` tries (typical ones, then the numbers and words of its help) plus edge
/// values around them; and, between actions, host events.
public struct StepGenerator: Sendable {
  /// The host events drawn between actions, as typed.
  public enum Event: Sendable, Equatable {
    case undo, redo, gotoEarlier, reload
  }

  /// Held by reference: a generator is copied out of its flow's table at every step.
  private final class Catalogue: Sendable {
    let actions: [ActionSpec]
    let values: [String: [String: [JSONValue]]]
    /// Each action's arguments, in catalogue order, with the values drawn for each.
    let arguments: [[(spec: ArgumentSpec, values: [JSONValue])]]
    /// The events drawn, and how often one is drawn instead of an action (per thousand).
    let events: [Event]
    /// The events but reloads (drawn at every step: not filtered out each time).
    let travels: [Event]
    let eventsPerThousand: Int
    let drawsReloads: Bool

    init(actions: [ActionSpec], values: [String: [String: [JSONValue]]], events: [Event], eventsPerThousand: Int) {
      self.actions = actions
      self.values = values
      arguments = actions.map { action in action.arguments.map { ($0, values[action.type]?[$0.name] ?? [.null]) } }
      self.events = events
      travels = events.filter { $0 != .reload }
      self.eventsPerThousand = events.isEmpty ? 0 : eventsPerThousand
      drawsReloads = events.contains(.reload)
    }
  }

  private let catalogue: Catalogue
  private var actions: [ActionSpec] { catalogue.actions }
  private var values: [String: [String: [JSONValue]]] { catalogue.values }
  static let reloadsPerThousand = 3

  public init(manifest: Manifest, events: [Event] = [.undo, .redo, .gotoEarlier], eventsPerThousand: Int = 60) {
    var values: [String: [String: [JSONValue]]] = [:]
    for action in manifest.actions {
      for argument in action.arguments { values[action.type, default: [:]][argument.name] = Self.values(argument) }
    }
    catalogue = Catalogue(
      actions: manifest.actions, values: values, events: events, eventsPerThousand: eventsPerThousand)
  }

  /// Whether the catalogue has anything to send.
  public var isEmpty: Bool { catalogue.actions.isEmpty }

  /// The next step; `seqs` is how many actions the run has journaled (for `:goto`).
  public func next(using random: inout SeededRandom, seqs: Int) -> ExploreStep {
    let catalogue = self.catalogue
    let roll = Int.random(in: 0..<1000, using: &random)
    // A reload starts a worker (milliseconds): rarer than the travels, which cost a few calls.
    if catalogue.drawsReloads && roll < Self.reloadsPerThousand { return .command(":reload") }
    let travels = catalogue.travels
    if !travels.isEmpty, roll < Self.reloadsPerThousand + catalogue.eventsPerThousand {
      switch travels[Int.random(in: 0..<travels.count, using: &random)] {
      case .undo: return .command(":undo")
      case .redo: return .command(":redo")
      case .reload: return .command(":reload")
      case .gotoEarlier where seqs > 1: return .command(":goto \(Int.random(in: 1..<seqs, using: &random))")
      case .gotoEarlier: return .command(":undo")
      }
    }
    // Drawn as before the catalogue was held by reference: the same seed, the same steps.
    let index = Int.random(in: 0..<catalogue.actions.count, using: &random)
    var arguments: [ExploreStep.Argument] = []
    for (argument, list) in catalogue.arguments[index] {
      // An optional argument is left out now and then.
      if !argument.required && Bool.random(using: &random) { continue }
      arguments.append(.init(name: argument.name, value: list[Int.random(in: 0..<list.count, using: &random)]))
    }
    return .action(type: catalogue.actions[index].type, arguments: arguments)
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
