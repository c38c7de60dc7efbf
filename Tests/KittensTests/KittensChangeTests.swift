import FeatureKit
import KittensFeature
import Testing

/// Kittens says itself whether an action changed the state; it must say what comparing a copy
/// of the state with the new one would.
@Suite("Kittens change reporting")
struct KittensChangeTests {
  typealias Action = KittensFeature.Action
  typealias State = KittensFeature.State

  let feature = KittensFeature(catalog: KittenCatalog(endpoint: "file:///nowhere.json", limit: 3))

  static let states: [State] = [
    State(),
    State(urls: ["a", "b", "c"], isLoading: true, loadingOffset: 3),
    State(urls: ["a", "b", "c"], isLoading: true, loadingOffset: 0),
    State(urls: ["a"], isLoading: false, endReached: true, error: "timed out"),
  ]

  static let actions: [Action] = [
    .created, .restored, .refresh, .loadMore, .pageLoaded(offset: 3, urls: ["d", "e", "f"]),
    .pageLoaded(offset: 3, urls: []), .pageLoaded(offset: 0, urls: ["a", "b", "c"]),
    .pageLoaded(offset: 0, urls: ["x"]), .loadFailed(reason: "timed out"), .loadFailed(reason: "other"),
  ]

  @Test(arguments: states, actions)
  func reportsExactlyWhatAComparisonWould(_ state: State, _ action: Action) {
    var reported = state
    var changed = false
    _ = feature.reduce(into: &reported, action: action, changed: &changed)
    #expect(changed == (reported != state), "\(action) on \(state)")
  }
}
