/// Draws the steps of a flow: the focused feature's actions and travels (its `StepGenerator`)
/// and, when it navigates, `:open ID`, `:back` and `:focus ID` between them.
public struct FlowSteps: Sendable {
  /// Each plugin's generator, in plugin order: found by comparing ids (a few short strings), not
  /// by hashing the focused id at every step.
  private let generators: [(id: String, generator: StepGenerator)]
  private let ids: [String]
  private let navigates: Bool
  /// How often a navigation is drawn instead (per thousand).
  static let navigationsPerThousand = 80

  /// `openable`: the ids `:open` draws from (nil: every plugin's).
  public init(plugins: [PluginRecord], navigates: Bool, openable: [String]? = nil, events: [StepGenerator.Event]) {
    var generators: [(id: String, generator: StepGenerator)] = []
    for plugin in plugins where !generators.contains(where: { $0.id == plugin.id }) {
      generators.append((plugin.id, StepGenerator(manifest: plugin.manifest, events: events)))
    }
    self.generators = generators
    ids = openable ?? plugins.map(\.id)
    self.navigates = navigates
  }

  public func isEmpty(_ id: String) -> Bool { generator(of: id)?.isEmpty ?? true }

  private func generator(of id: String) -> StepGenerator? { generators.first(where: { $0.id == id })?.generator }

  /// The features `flow` names itself (its start and its rules), which `:open` draws from: a
  /// feature it does not name may need a config the exploration does not give (a network).
  public static func named(in flow: Flow) -> [String] {
    func ids(_ navigation: Flow.Navigation) -> [String] {
      let targets: [Flow.Target] =
        switch navigation {
        case .push(let target), .replace(let target): [target]
        case .present(let targets): targets
        case .pop: []
        }
      return targets.compactMap { if case .feature(let id) = $0 { id } else { nil } }
    }
    var seen = Set<String>()
    return (ids(flow.start) + flow.rules.keys.sorted().flatMap { ids(flow.rules[$0] ?? .pop) })
      .filter { seen.insert($0).inserted }
  }

  public func next(using random: inout SeededRandom, at position: ExplorePosition) -> ExploreStep {
    if navigates, Int.random(in: 0..<1000, using: &random) < Self.navigationsPerThousand {
      switch Int.random(in: 0..<3, using: &random) {
      case 0 where !ids.isEmpty: return .command(":open \(ids[Int.random(in: 0..<ids.count, using: &random)])")
      case 1 where position.shown.count > 1:
        return .command(":focus \(position.shown[Int.random(in: 0..<position.shown.count, using: &random)])")
      default: return .command(":back")
      }
    }
    guard let generator = generator(of: position.focused), !generator.isEmpty else { return .command(":back") }
    return generator.next(using: &random, seqs: position.seqs)
  }

  /// Simpler versions of an action, from the catalogue that has its type.
  public func simpler(_ step: ExploreStep) -> [ExploreStep] {
    for (_, generator) in generators {
      let found = generator.simpler(step)
      if !found.isEmpty { return found }
    }
    return []
  }
}
