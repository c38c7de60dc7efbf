import FeatureJSON
import FeatureTesting
import HostKit
import Synchronization
import Testing

/// `FeatureTestStore.explore`: the author's invariant checked after every drawn action, the
/// failure shrunk and recorded at the caller's line; a feature that holds it passes.
@Suite("FeatureTestStore.explore")
struct FeatureTestStoreExploreTests {
  @Test("an invariant the counter breaks is found, shrunk and recorded at the caller's line")
  func aBrokenInvariantIsRecordedAtTheCallersLine() async throws {
    let recorded = Mutex<[(text: String, line: Int?)]>([])
    let line = Mutex(0)
    try await withKnownIssue {
      let store = try await FeatureTestStore(plugin: "Counter")
      line.withLock { $0 = #line + 1 }
      await store.explore(runs: 5, steps: 50, seed: 3) { state in (state["count"]?.intValue ?? 0) < 2 }
      await store.finish()
    } matching: { issue in
      recorded.withLock {
        $0.append((issue.comments.map(\.rawValue).joined(separator: "\n"), issue.sourceLocation?.line))
      }
      return true
    }
    let issues = recorded.withLock { $0 }
    #expect(issues.count == 1)
    // the shortest sequence that breaks it: two increments
    #expect(
      issues.first?.text.hasPrefix("Exploring counter (seed 3) failed after 2 action(s): increment, increment\n")
        == true, "\(issues)")
    #expect(issues.first?.text.contains(#"why: the invariant does not hold for {"clicks":2,"count":2}"#) == true)
    #expect(issues.first?.line == line.withLock { $0 })
  }

  @Test("a feature that keeps the contract and the invariant passes")
  func aKeptInvariantPasses() async throws {
    let store = try await FeatureTestStore(plugin: "Counter")
    await store.explore(runs: 3, steps: 100, seed: 9) { state in
      state["clicks"]?.intValue ?? -1 >= abs(state["count"]?.intValue ?? 0)
    }
    await store.finish()
  }
}
