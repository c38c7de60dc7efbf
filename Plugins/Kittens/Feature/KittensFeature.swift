import FeatureKit

// Placeholder while the kittens feature is written; replaced as a whole.
public struct KittensFeature: Feature {
  public struct State: Codable, Equatable, Sendable {}
  public enum Action: Codable, Sendable { case created }
  public static let manifest = Manifest(id: "kittens", name: "Kittens", version: "0.0.0", description: "", actions: [])
  public init(config: FeatureConfig) {}
  public func initialState() -> State { State() }
  public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
  public func render(_ state: State) -> [String] { ["Kittens"] }
}
