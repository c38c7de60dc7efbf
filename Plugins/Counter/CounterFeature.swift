import FeatureKit

/// The classic MVI counter: increment and decrement move the count, and every click is counted.
public struct CounterFeature: Feature {
  public struct State: Codable, Equatable, Sendable {
    public var count = 0, clicks = 0
    public init(count: Int = 0, clicks: Int = 0) { (self.count, self.clicks) = (count, clicks) }
  }

  public enum Action: Codable, Sendable, Equatable {
    /// Add one to the count.
    case increment
    /// Take one from the count.
    case decrement
  }

  public static let manifest = Manifest(
    id: "counter", name: "Counter", version: "1.0.0", description: "Counts up and down, and counts the clicks.")

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.count += action == .increment ? 1 : -1
    state.clicks += 1
    return .none
  }

  public func render(_ s: State) -> [String] { ["Counter", "  count:  \(s.count)", "  clicks: \(s.clicks)"] }

  public func validate(_ state: State) throws {
    guard state.clicks >= 0, state.count.magnitude <= state.clicks.magnitude else {
      throw FeatureError("count \(state.count) cannot be reached in \(state.clicks) clicks")
    }
  }
}
