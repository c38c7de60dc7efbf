import FeatureJSON
import FeatureTesting
import Foundation
import Testing

@testable import HostKit

/// The journal's periodic snapshot after a batch's last action comes in the batch's own exchange
/// with a worker, and is the state a call after it would give.
@Suite("A batch's snapshot in the same exchange")
struct BatchSnapshotTests {
  static func tally() throws -> WorkerInstance {
    let worker = try WorkerFixtures.worker(try TallyRun.plugin, target: SilentTarget())
    try worker.start()
    return worker
  }

  /// Dispatches `actions` as one batch and takes a snapshot while the last result is handled,
  /// as the journal does; returns that snapshot and the exchanges the whole took.
  static func batch(_ actions: [String], on worker: WorkerInstance, snapshotAfterLast: Bool) throws
    -> (state: String, exchanges: Int)
  {
    let before = worker.exchanges
    var handled = 0
    var state: Result<String, PluginCallError>?
    worker.dispatch(actions, snapshots: snapshotAfterLast ? .afterLast(of: actions.count) : .none) { result in
      handled += 1
      #expect(throws: Never.self) { try result.get() }
      if handled == actions.count {
        state = Result { () throws(PluginCallError) in
          try worker.withSnapshot { String(decoding: $0, as: UTF8.self) }
        }
      }
    }
    #expect(handled == actions.count)
    return (try #require(state).get(), worker.exchanges - before)
  }

  @Test func theSnapshotAfterTheLastActionTakesNoExchangeOfItsOwn() throws {
    let worker = try Self.tally()
    defer { worker.destroy() }
    let actions = TallyRun.actions(7).map(\.json)
    let taken = try Self.batch(actions, on: worker, snapshotAfterLast: true)
    #expect(taken.state == TallyRun.state(total: TallyRun.total(after: 7)))
    #expect(taken.exchanges == 1)
    // Handed over once: asked again, the worker is asked, and says the same.
    let before = worker.exchanges
    #expect(try worker.snapshot() == taken.state)
    #expect(worker.exchanges == before + 1)
  }

  @Test func withoutItTheSnapshotIsACallAfterTheBatch() throws {
    let worker = try Self.tally()
    defer { worker.destroy() }
    let taken = try Self.batch(TallyRun.actions(3).map(\.json), on: worker, snapshotAfterLast: false)
    #expect(taken.state == TallyRun.state(total: 3))
    #expect(taken.exchanges == 2)
  }

  @Test func aSnapshotLeftUntakenIsNotHandedOverLater() throws {
    let worker = try Self.tally()
    defer { worker.destroy() }
    worker.dispatch(TallyRun.actions(2).map(\.json), snapshots: .afterLast(of: 2)) { _ in }
    _ = try worker.dispatch(TallyRun.addOne)
    // The batch's snapshot said 2; the state is 3 now.
    #expect(try worker.withSnapshot { String(decoding: $0, as: UTF8.self) } == TallyRun.state(total: 3))
  }

  @Test func aCallAfterTheBatchMakesItsSnapshotStale() throws {
    let worker = try Self.tally()
    defer { worker.destroy() }
    var state: String?
    var handled = 0
    worker.dispatch(TallyRun.actions(2).map(\.json), snapshots: .afterLast(of: 2)) { _ in
      handled += 1
      guard handled == 2, (try? worker.restore(TallyRun.state(total: 4))) != nil else { return }
      state = try? worker.withSnapshot { String(decoding: $0, as: UTF8.self) }
    }
    // The last result's handler restored another state: the snapshot is asked of the worker.
    #expect(state == TallyRun.state(total: 4))
  }

  @Test func snapshotsInsideARunComeInItsStreamAndOnlyThereMidRun() throws {
    let worker = try Self.tally()
    defer { worker.destroy() }
    let actions = TallyRun.actions(7).map(\.json)
    let before = worker.exchanges
    var handled = 0
    var seen: [Int: String] = [:]
    var callable: [Bool] = []
    worker.dispatch(actions, snapshots: SnapshotPoints(first: 2, every: 3)) { result in
      #expect(throws: Never.self) { try result.get() }
      callable.append(worker.canSnapshotNow)
      if worker.canSnapshotNow, let state = try? worker.withSnapshot({ String(decoding: $0, as: UTF8.self) }) {
        seen[handled] = state
      }
      handled += 1
    }
    // Taken after the third and the sixth action; the last result may call the worker.
    #expect(callable == [false, false, true, false, false, true, true])
    #expect(seen[2] == TallyRun.state(total: TallyRun.total(after: 3)))
    #expect(seen[5] == TallyRun.state(total: TallyRun.total(after: 6)))
    #expect(seen[6] == TallyRun.state(total: TallyRun.total(after: 7)))
    // The run with its two snapshots in one exchange; the last action's state was a call.
    #expect(worker.exchanges == before + 2)
  }

  @Test func aSnapshotThatBringsTheWorkerDownInARunIsTheSnapshotsLossNotAnActions() throws {
    let worker = try WorkerFixtures.worker(
      try TallyRun.plugin, config: #"{"fault_in":"snapshot"}"#, target: SilentTarget())
    defer { worker.destroy() }
    try worker.start()
    // The state after the second action has a total of 13: taking it ends the worker.
    let actions = [#"{"type":"add","amount":9}"#, #"{"type":"add","amount":4}"#, TallyRun.addOne, TallyRun.addOne]
    var results: [Result<Bool, PluginCallError>] = []
    var snapshot: Result<Int, PluginCallError>?
    worker.dispatch(actions, snapshots: SnapshotPoints(first: 1, every: 0)) { result in
      results.append(result)
      if results.count == 2 {
        #expect(worker.canSnapshotNow)
        snapshot = Result { () throws(PluginCallError) in try worker.withSnapshot { $0.count } }
      }
    }
    #expect(results.count == 4)
    #expect((try? results[0].get()) == true)
    #expect((try? results[1].get()) == true)
    guard case .failure(let error)? = snapshot else {
      Issue.record("the snapshot after the second action did not fail: \(String(describing: snapshot))")
      return
    }
    #expect(error.loss != nil)
    #expect(error.call == "snapshot")
    #expect(error.attribution == .thisCall)
    for later in results[2...] {
      guard case .failure(let error) = later else {
        Issue.record("an action after the lost snapshot was answered")
        continue
      }
      #expect(error.loss != nil)
      #expect(error.attribution == .notThisCall)
    }
  }

  /// The snapshots of a session's journal: each `"state"` line, as written.
  static func snapshots(in journal: String) throws -> [Substring] {
    try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n").filter { $0.contains(#""state":"#) }
  }

  /// Each snapshot line's seq and state.
  static func seqsAndStates(_ lines: [Substring]) throws -> [(seq: Int, state: JSONValue)] {
    try lines.map { line in
      let record = try JSONValue.parse(String(line))
      return (Int(try #require(record["seq"]?.intValue)), try #require(record["state"]))
    }
  }

  @Test("a piped session journals its snapshots as in process; after a refusal, later in a worker")
  func aPipedSessionsSnapshotsAreThoseOfAnInProcessRun() async throws {
    let plugins = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(atPath: try TallyRun.plugin, toPath: "\(plugins)/libtally.so")
    for refusal in [nil, 400] {
      let actions = TallyRun.actions(2_500, replacing: refusal.map { [$0: TallyRun.refused] } ?? [:])
      let input = actions.map { $0.json + "\n" }.joined()
      var journals: [String: [(seq: Int, state: JSONValue)]] = [:]
      for isolation in ["process", "none"] {
        let state = try StateFolder()
        let run = try await state.host(
          ["--plugins", plugins, "run", "tally", "--session", "demo", "--isolation", isolation], input)
        #expect(run.status == 0, "\(run.stderr)")
        journals[isolation] = try Self.seqsAndStates(try Self.snapshots(in: state.journal("demo")))
      }
      // The totals after each seq: seq 1 is the lifecycle action a fresh instance takes first,
      // then the applied actions (a refusal takes no seq).
      var totals = [0, 0]
      for action in actions where action.json != TallyRun.refused {
        totals.append(action.json == TallyRun.addOne ? totals[totals.count - 1] + 1 : 0)
      }
      let inProcess = try #require(journals["none"])
      let worker = try #require(journals["process"])
      #expect(inProcess.map(\.seq) == [0, 1_000, 2_000])
      for snapshot in inProcess + worker {
        let expected = try JSONValue.parse(TallyRun.state(total: totals[snapshot.seq]))
        #expect(snapshot.state == expected, "seq \(snapshot.seq)")
      }
      if refusal == nil {
        #expect(worker.map(\.seq) == inProcess.map(\.seq))
      } else {
        // A worker has the state mid-run only where the run took it: a refusal earlier in the run
        // moves the snapshot due after it to the next place that has one (the run's end, or the
        // place of the snapshot after it), at most one interval later.
        let seqs = worker.map(\.seq)
        #expect(seqs.first == 0)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 - $0 >= 1_000 && $1 - $0 < 2_000 }, "\(seqs)")
        #expect((seqs.last ?? 0) + 2_000 > totals.count - 1, "\(seqs)")
      }
    }
  }
}
