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

/// The refusal check, the manual clock and `FlowTestStore.explore`.
@Suite("Exploring: refusals, paced features and flows")
struct ExploreContractTests {
  /// The line a test calls `explore` at.
  final class Line: Sendable {
    let value = Mutex(0)
  }

  /// Runs `body`, which must record exactly one issue; returns its text and line.
  static func oneIssue(_ body: (Line) async throws -> Void) async throws -> (text: String, line: Int?, at: Int) {
    let recorded = Mutex<[(text: String, line: Int?)]>([])
    let line = Line()
    try await withKnownIssue {
      try await body(line)
    } matching: { issue in
      recorded.withLock {
        $0.append((issue.comments.map(\.rawValue).joined(separator: "\n"), issue.sourceLocation?.line))
      }
      return true
    }
    let issues = recorded.withLock { $0 }
    #expect(issues.count == 1, "\(issues)")
    let first = try #require(issues.first)
    return (first.text, first.line, line.value.withLock { $0 })
  }

  @Test("a refused action that changed the state is found against the state right before it")
  func aRefusalThatChangesTheStateIsFound() async throws {
    // given a tally whose add amount=10 is refused but adds 1
    let library = try FixturePlugin.path(["FIXTURE_TALLY", "EXPLORE_REFUSAL_CHANGES"])
    let issue = try await Self.oneIssue { line in
      let store = try await FeatureTestStore(plugin: library)
      line.value.withLock { $0 = #line + 1 }
      await store.explore(runs: 20, steps: 50, seed: 4)
      await store.finish()
    }
    // then the refused action alone is the failure, the state before it the one right before
    #expect(issue.text.contains("failed after 1 action(s): add amount=10\n"), "\(issue.text)")
    #expect(
      issue.text.contains(
        #"why: refusing {"amount":10,"type":"add"} changed the state from {"pongs":0,"total":0} to {"pongs":0,"total":1}"#
      ),
      "\(issue.text)")
    #expect(issue.line == issue.at)
  }

  @Test("a call that never returns in process is found and shrunk in workers, and the test goes on")
  func anInProcessHangIsFoundAndTheTestGoesOn() async throws {
    // given a tally whose add of 9 right after another add never returns, explored in process
    let library = try FixturePlugin.path(["FIXTURE_TALLY", "EXPLORE_HANG"])
    let issue = try await Self.oneIssue { line in
      let store = try await FeatureTestStore(plugin: library, timeout: .milliseconds(300))
      line.value.withLock { $0 = #line + 1 }
      await store.explore(runs: 100, steps: 100, seed: 26)
      await store.finish()
    }
    // then the hang is the failure, shrunk to the two adds (in workers, where the call timeout
    // ends a hung call), recorded at the caller's line, and the test ended (it did not wait for
    // the hung thread)
    #expect(issue.text.contains("failed after 2 action(s): add amount=1, add amount=9\n"), "\(issue.text)")
    #expect(issue.text.contains("did not answer dispatch within 0.3 s"), "\(issue.text)")
    #expect(issue.line == issue.at)
  }

  @Test("an effect slower than the timeout is no failure while exploring: it is waited for once more")
  func aSlowEffectIsNoHang() async throws {
    // given a tally whose ping's effect takes 0.5 s, explored in process with a 0.3 s timeout
    let library = try FixturePlugin.path(["FIXTURE_TALLY", "EXPLORE_SLOW_EFFECT"])
    let store = try await FeatureTestStore(plugin: library, timeout: .milliseconds(300))
    let pongs = Mutex(0)
    // when it explores a run with pings in it
    await store.explore(runs: 1, steps: 6, seed: 5) { state in
      pongs.withLock { $0 = max($0, Int(state["pongs"].flatMap(\.intValue) ?? 0)) }
      return true
    }
    await store.finish()
    // then no issue was recorded (a settle past 0.3 s waited for the effects), and their pongs came
    #expect(pongs.withLock { $0 } >= 1)
  }

  @Test("a paced feature explores on the manual clock: its timers fire by ticks, not by waiting")
  func levelsExploresOnTheManualClock() async throws {
    // given levels paced at a minute a step, on the manual clock
    let plugin = try PluginLoader.load(PluginPaths.library("Levels"))
    let store = try Store(
      plugin: plugin, config: #"{"interval": 60000}"#, options: Store.Options(rendersViews: false, clock: .manual),
      observer: { _ in })
    try store.start()
    defer { _ = store.stop() }
    // when a regulation of 10 steps is started and the store settled, moving the clock
    store.send(#"{"type":"set","left":0,"right":10}"#, source: .user)
    let settled = store.settleMovingClock(timeout: .seconds(30), maxTicks: 100)
    // then it ran its course in ticks of the manual clock (a real one would take ten minutes)
    #expect(settled.result == .settled)
    #expect(settled.ticks >= 5 && settled.ticks <= 12, "\(settled.ticks) ticks")
    #expect(try JSONValue.parse(store.state()) == ["left": 5, "right": 5])
    #expect(store.pendingTimers == 0)
    // and a bound on the ticks leaves the pace where it is: settled as far as a person waits
    store.send(#"{"type":"set","left":0,"right":100}"#, source: .user)
    let bounded = store.settleMovingClock(timeout: .seconds(30), maxTicks: 3)
    #expect(bounded.result == .settled && bounded.ticks == 3, "\(bounded)")
    #expect(store.pendingTimers == 1)
  }

  @Test("FeatureTestStore.explore runs a paced feature on the manual clock")
  func featureTestStoreExploresLevels() async throws {
    // levels at a minute a step: 200 steps with a real clock would wait for hours
    let store = try await FeatureTestStore(
      plugin: "Levels", config: ["interval": 60000], exhaustivity: .off, clock: .manual)
    await store.explore(runs: 2, steps: 100, seed: 7) { state in
      abs(state["left"]?.intValue ?? 9999) <= 2000 && abs(state["right"]?.intValue ?? 9999) <= 2000
    }
    await store.finish()
  }

  @Test("FlowTestStore.explore finds a feature left stopped after :open then :back, at the caller's line")
  func flowExploreFindsAStoppedFeature() async throws {
    // given a tally whose instances share one "stopped" flag, in a flow that starts on it
    let library = try FixturePlugin.path(["FIXTURE_TALLY", "EXPLORE_STOPPED_GLOBAL"])
    let issue = try await Self.oneIssue { line in
      let flow = try await FlowTestStore(
        flow: .json(#"{"flow": "twice", "start": {"push": "tally"}, "on": {}}"#), plugins: [.init(library: library)])
      line.value.withLock { $0 = #line + 1 }
      await flow.explore(runs: 50, steps: 100, seed: 26)
      await flow.finish()
    }
    // then the shortest navigation that stops it, and an action it refuses as stopped
    #expect(
      issue.text.hasPrefix("Exploring flow twice (seed 26) failed after 3 step(s): :open tally, :back, "),
      "\(issue.text)")
    #expect(issue.text.contains("why: tally is on show but refused an action as stopped"), "\(issue.text)")
    #expect(issue.line == issue.at)
  }

  @Test("FlowTestStore.explore finds a call that never returns in process, shrinks it in workers and goes on")
  func flowExploreFindsAnInProcessHang() async throws {
    // given a tally whose add of 9 right after another add never returns, in a flow, in process
    let library = try FixturePlugin.path(["FIXTURE_TALLY", "EXPLORE_HANG"])
    let issue = try await Self.oneIssue { line in
      let flow = try await FlowTestStore(
        flow: .json(#"{"flow": "one", "start": {"push": "tally"}, "on": {}}"#), plugins: [.init(library: library)],
        timeout: .milliseconds(300))
      line.value.withLock { $0 = #line + 1 }
      await flow.explore(runs: 100, steps: 100, seed: 26)
      await flow.finish()
    }
    // then the hang is the failure, shrunk to the two adds, and the test ended
    #expect(issue.text.contains("failed after 2 step(s): add amount=1, add amount=9\n"), "\(issue.text)")
    #expect(issue.text.contains("did not answer dispatch within 0.3 s"), "\(issue.text)")
    #expect(issue.line == issue.at)
  }

  @Test("FlowTestStore.explore of the main flow keeps the contract and the test's invariant")
  func flowExploreOfTheMainFlowIsClean() async throws {
    let catalog = "file://\(FixturePlugin.packageRoot)/Plugins/Kittens/catalog.json"
    let flow = try await FlowTestStore(
      plugins: [
        "Home", "Counter", .plugin("Levels", config: ["interval": 50]),
        .plugin("Kittens", config: ["endpoint": .string(catalog), "limit": 2]),
      ], exhaustivity: .off)
    await flow.explore(runs: 3, steps: 60, seed: 11) { look in
      // home stays at the bottom of the stack
      look.stack.first == "home"
    }
    await flow.finish()
  }
}
