import FeatureTesting
import Foundation
import Testing

@testable import HostKit

/// Forwards to an instance and keeps every batch it was sent.
final class BatchRecorder: ForwardingInstance {
  let base: any PluginInstance
  private(set) var batches: [[InstanceCall]] = []

  init(_ base: any PluginInstance) { self.base = base }

  func perform(_ calls: [InstanceCall], handle: (Result<InstanceAnswer, PluginCallError>) -> Void) {
    batches.append(calls)
    base.perform(calls, handle: handle)
  }
}

/// A restore from a journal (a session opened, `:goto`, undo and redo, the restart after a crash)
/// reduces the actions after the state in batches, and names the same action one by one would.
@Suite("Restore points applied in batches")
struct BatchedRestoreTests {
  enum Isolation: String, CaseIterable, Sendable { case inProcess, worker }

  static func instance(_ isolation: Isolation, config: String = "{}") throws -> any PluginInstance {
    let plugin = try PluginLoader.load(try TallyRun.plugin)
    let factory: InstanceFactory = isolation == .worker ? .worker(executable: HostProcess.executable) : .inProcess
    return try factory.makeInstance(of: plugin, config: config, target: SilentTarget())
  }

  static func point(_ actions: [JournalAction], state: String? = TallyRun.state(total: 0)) -> JournalRestorePoint {
    JournalRestorePoint(
      path: "s.jsonl", state: state, stateSeq: 0, actions: actions, lastSeq: actions.last?.seq ?? 0)
  }

  @Test("2,500 actions go in three batches and reach the state one by one reaches", arguments: Isolation.allCases)
  func longRunsGoInBatches(_ isolation: Isolation) throws {
    let actions = TallyRun.actions(2_500)
    let batched = BatchRecorder(try Self.instance(isolation))
    defer { batched.destroy() }
    try Self.point(actions).apply(to: batched)
    #expect(batched.batches.map(\.count) == [1_024, 1_024, 452])
    #expect(batched.batches.joined().elementsEqual(actions.map { InstanceCall.reduce($0.json) }))
    let alone = try Self.instance(isolation)
    defer { alone.destroy() }
    try alone.restore(TallyRun.state(total: 0))
    for action in actions { _ = try alone.reduce(action.json) }
    #expect(try batched.snapshot() == alone.snapshot())
    #expect(try batched.snapshot() == TallyRun.state(total: TallyRun.total(after: 2_500)))
  }

  @Test(
    "a refused action in the middle of a batch is the one named, and no later batch is sent",
    arguments: Isolation.allCases)
  func aRefusalInABatchNamesItsAction(_ isolation: Isolation) throws {
    let batched = BatchRecorder(try Self.instance(isolation))
    defer { batched.destroy() }
    let point = Self.point(TallyRun.actions(2_500, replacing: [1_500: TallyRun.refused]))
    let error = try #require(throws: HostError.self) { try point.apply(to: batched) }
    #expect(
      error.message
        == #"journal 's.jsonl': feature 'tally' refused the action at seq 1500 {"type":"add","amount":0}: "#
        + "tally: add needs amount=<integer from 1 to 9>")
    #expect(batched.batches.map(\.count) == [1_024, 1_024])
  }

  @Test func aWorkerCrashInTheMiddleOfABatchNamesItsActionAndIsWatchedAsTheLoss() throws {
    let worker = try Self.instance(.worker, config: #"{"fault_in":"reduce"}"#)
    defer { worker.destroy() }
    let watched = LossWatch(worker)
    let point = Self.point(TallyRun.actions(2_500, replacing: [1_500: TallyRun.toThirteen]))
    let error = try #require(throws: HostError.self) { try point.apply(to: watched) }
    #expect(
      error.message.hasPrefix(
        #"journal 's.jsonl': feature 'tally' refused the action at seq 1500 {"type":"add","amount":9}: "#))
    #expect(error.message.contains("crashed (signal 11"))
    #expect(watched.lost?.call == "reduce")
    #expect(watched.lost?.loss == .signalled(11))
  }

  @Test func aLossAfterABatchsFirstFailureIsNotWhatFailed() throws {
    // Every call of a batch is made: the crash at 1500 follows the refusal at 1200, which a
    // restore one by one would have stopped at.
    let worker = try Self.instance(.worker, config: #"{"fault_in":"reduce"}"#)
    defer { worker.destroy() }
    let watched = LossWatch(worker)
    let point = Self.point(
      TallyRun.actions(2_000, replacing: [1_200: TallyRun.refused, 1_500: TallyRun.toThirteen]))
    let error = try #require(throws: HostError.self) { try point.apply(to: watched) }
    #expect(error.message.contains(#"the action at seq 1200 {"type":"add","amount":0}"#))
    #expect(watched.lost == nil)
  }

  @Test func performInBatchesHandsAnswersWithTheirItemsAndStopsAtTheFirstFailure() throws {
    let batched = BatchRecorder(try Self.instance(.inProcess))
    defer { batched.destroy() }
    try batched.restore(TallyRun.state(total: 0))
    var seen: [String] = []
    let failure = batched.performInBatches(
      TallyRun.actions(7, replacing: [3: TallyRun.refused, 5: TallyRun.refused]), batchSize: 2,
      calls: { [.reduce($0.json), .render] },
      answered: { action, call, answer in
        seen.append(
          call == .render ? "\(action.seq) \(answer.text.split(separator: "\n")[1])" : "\(action.seq) reduced")
      })
    #expect(seen == ["1 reduced", "1   total: 1", "2 reduced", "2   total: 2"])
    #expect(failure?.item.seq == 3)
    #expect(failure?.call == .reduce(TallyRun.refused))
    #expect(failure?.error.isBadInput == true)
    // The batch with seq 3 was sent whole; the ones after it were not.
    #expect(batched.batches.map(\.count) == [4, 4])
  }
}
