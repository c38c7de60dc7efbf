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
    worker.dispatch(actions, snapshotAfterLast: snapshotAfterLast) { result in
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
    worker.dispatch(TallyRun.actions(2).map(\.json), snapshotAfterLast: true) { _ in }
    _ = try worker.dispatch(TallyRun.addOne)
    // The batch's snapshot said 2; the state is 3 now.
    #expect(try worker.withSnapshot { String(decoding: $0, as: UTF8.self) } == TallyRun.state(total: 3))
  }

  @Test func aCallAfterTheBatchMakesItsSnapshotStale() throws {
    let worker = try Self.tally()
    defer { worker.destroy() }
    var state: String?
    var handled = 0
    worker.dispatch(TallyRun.actions(2).map(\.json), snapshotAfterLast: true) { _ in
      handled += 1
      guard handled == 2, (try? worker.restore(TallyRun.state(total: 4))) != nil else { return }
      state = try? worker.withSnapshot { String(decoding: $0, as: UTF8.self) }
    }
    // The last result's handler restored another state: the snapshot is asked of the worker.
    #expect(state == TallyRun.state(total: 4))
  }

  /// The snapshots of a session's journal: each `"state"` line, as written.
  static func snapshots(in journal: String) throws -> [Substring] {
    try String(contentsOfFile: journal, encoding: .utf8).split(separator: "\n").filter { $0.contains(#""state":"#) }
  }

  @Test("a piped session journals its snapshots as in process, a refusal among the actions")
  func aPipedSessionsSnapshotsAreThoseOfAnInProcessRun() async throws {
    let plugins = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(atPath: try TallyRun.plugin, toPath: "\(plugins)/libtally.so")
    // A refusal takes no seq: the batch before the due snapshot is one short of it, and the
    // action after goes alone.
    let input = TallyRun.actions(2_500, replacing: [400: TallyRun.refused]).map { $0.json + "\n" }.joined()
    var journals: [String: [Substring]] = [:]
    for isolation in ["process", "none"] {
      let state = try StateFolder()
      let run = try await state.host(
        ["--plugins", plugins, "run", "tally", "--session", "demo", "--isolation", isolation], input)
      #expect(run.status == 0, "\(run.stderr)")
      journals[isolation] = try Self.snapshots(in: state.journal("demo"))
    }
    let worker = try #require(journals["process"])
    #expect(worker.count == 3, "\(worker)")
    #expect(worker == journals["none"])
    #expect(worker.map { $0.hasPrefix(#"{"seq":"#) } == [true, true, true])
    #expect(worker.map { $0.dropFirst(7).prefix { $0 != "," } } == ["0", "1000", "2000"])
  }
}
