import FeatureKit

/// The classic MVI counter: increment and decrement move the count, every click is counted, and
/// the state survives a restore.
public struct CounterFeature: Feature {
  public struct State: Codable, Equatable, Sendable {
    public var count: Int
    public var clicks: Int

    public init(count: Int = 0, clicks: Int = 0) {
      self.count = count
      self.clicks = clicks
    }
  }

  public enum Action: Codable, Sendable, Equatable {
    case increment
    case decrement
  }

  public static let manifest = Manifest(
    id: "counter",
    name: "Counter",
    version: "1.0.0",
    description: "Counts up and down, and counts the clicks.",
    actions: [
      ActionSpec("increment", help: "Add one to the count."),
      ActionSpec("decrement", help: "Take one from the count."),
    ]
  )

  public init(config: FeatureConfig) {}

  public init() {}

  public func initialState() -> State { State() }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      state.clicks += 1
    case .decrement:
      state.count -= 1
      state.clicks += 1
    }
    return .none
  }

  public func render(_ state: State) -> [String] {
    ["Counter", "  count:  \(state.count)", "  clicks: \(state.clicks)"]
  }

  public func validate(_ state: State) throws {
    guard state.clicks >= 0 else {
      throw FeatureError("clicks must not be negative, got \(state.clicks)")
    }
    guard state.count.magnitude <= state.clicks.magnitude else {
      throw FeatureError("count \(state.count) cannot be reached in \(state.clicks) clicks")
    }
  }
}
