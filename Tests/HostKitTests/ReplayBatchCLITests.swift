import FeatureTesting
import Foundation
import HostKit
import Testing

/// `host replay` sends the actions between a journal's other records in batches: its views,
/// snapshot checks, `--to` and the action it blames are those of a replay one action at a time.
@Suite("Replay in batches, through the CLI")
struct ReplayBatchCLITests {
  /// A plugin folder holding the faults fixture as `tally`, and a journal of it.
  struct Setup {
    let plugins: String
    let folder: String
    var journal: String { "\(folder)/tally.jsonl" }

    /// A journal of `actions` from a fresh tally (its state recorded at seq 0), with a snapshot
    /// after every `snapshotEvery` actions and the run's `config`.
    init(_ actions: [JournalAction], snapshotEvery: Int = 0, config: String? = nil) throws {
      plugins = try FixturePlugin.temporaryFolder()
      try FileManager.default.copyItem(atPath: try TallyRun.plugin, toPath: "\(plugins)/libtally.so")
      folder = try FixturePlugin.temporaryFolder()
      let plugin = try PluginLoader.load("\(plugins)/libtally.so")
      let writer = try JournalWriter.create(
        at: "\(folder)/tally.jsonl", header: JournalHeader(plugin: plugin, config: config), limits: .init(syncs: false))
      try writer.append(snapshot: TallyRun.state(total: 0))
      for action in actions {
        try writer.append(action: action.json, source: action.source)
        if snapshotEvery > 0, action.seq % snapshotEvery == 0 {
          try writer.append(snapshot: TallyRun.state(total: TallyRun.total(after: action.seq)))
        }
      }
      try writer.commit()
      try writer.close()
    }

    /// The replay's output; stderr without the line a sanitizer's build adds (the sandbox has no
    /// memory limit there).
    func replay(_ arguments: [String] = []) async throws -> HostProcess.Output {
      var output = try await HostProcess.run(
        ["--plugins", plugins, "replay", journal] + arguments,
        environment: ["XDG_STATE_HOME": "\(folder)/state", "XDG_CACHE_HOME": "\(folder)/cache"])
      output.stderr = output.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("warning: the sandbox runs without some protections") }.joined(separator: "\n")
      return output
    }
  }

  /// What a replay prints of a run with nothing replaced, up to `seq`: the view after each
  /// action (each changes it).
  static func views(to seq: Int) -> String {
    (1...seq).map { TallyRun.view(total: TallyRun.total(after: $0)) }.joined(separator: "\n") + "\n"
  }

  @Test("a journal of 2,500 actions replays every view and snapshot, in a worker and in process")
  func aLongJournalReplaysWhole() async throws {
    let setup = try Setup(TallyRun.actions(2_500), snapshotEvery: 1_000)
    for isolation in ["process", "none"] {
      let result = try await setup.replay(["--isolation", isolation])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout == Self.views(to: 2_500))
      #expect(
        result.stderr == "note: replayed 2500 action(s) of \(setup.journal); 3 snapshot(s) matched byte for byte\n")
    }
  }

  @Test func toStopsInTheMiddleOfABatch() async throws {
    let setup = try Setup(TallyRun.actions(2_500))
    let result = try await setup.replay(["--to", "1500"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == Self.views(to: 1_500))
    #expect(result.stderr == "note: replayed 1500 action(s) of \(setup.journal); 1 snapshot(s) matched byte for byte\n")
  }

  /// A replay of 2,500 actions whose plugin crashes in `call` on the action at seq 1500: it
  /// failed there, having printed the views before it.
  static func replayCrashing(in call: String) async throws -> (setup: Setup, result: HostProcess.Output) {
    let setup = try Setup(
      TallyRun.actions(2_500, replacing: [1_500: TallyRun.toThirteen]), config: #"{"fault_in":"\#(call)"}"#)
    let result = try await setup.replay()
    #expect(result.status == 1)
    #expect(result.stdout == Self.views(to: 1_499))
    return (setup, result)
  }

  @Test func aWorkerCrashInTheMiddleOfABatchNamesTheActionsSeq() async throws {
    let (setup, result) = try await Self.replayCrashing(in: "reduce")
    #expect(
      result.stderr
        == "error: journal '\(setup.journal)' seq 1500: tally crashed (signal 11, Segmentation fault) while replaying "
        + #"{"type":"add","amount":9}"# + "\n"
        + "help: replay with a build of tally that does not crash, or with --to 1499 for the state before\n")
  }

  @Test func aRenderCrashInTheMiddleOfABatchNamesTheActionsSeq() async throws {
    let (setup, result) = try await Self.replayCrashing(in: "render")
    #expect(result.stderr.hasPrefix("error: journal '\(setup.journal)' seq 1500: tally could not render: "))
    #expect(result.stderr.contains("crashed (signal 11, Segmentation fault)"))
  }

  @Test("a refused action in the middle of a batch is named, in a worker and in process")
  func aRefusalInTheMiddleOfABatchIsNamed() async throws {
    let setup = try Setup(TallyRun.actions(2_500, replacing: [1_500: TallyRun.refused]))
    for isolation in ["process", "none"] {
      let result = try await setup.replay(["--isolation", isolation])
      #expect(result.status == 1)
      #expect(result.stdout == Self.views(to: 1_499))
      #expect(
        result.stderr
          == "error: journal '\(setup.journal)' seq 1500: tally refused "
          + #"{"type":"add","amount":0}: tally: add needs amount=<integer from 1 to 9>"# + "\n"
          + "help: the journal may come from another version of the feature\n")
    }
  }
}
