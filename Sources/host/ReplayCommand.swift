import Foundation
import HostKit

/// `host replay FILE`: applies a journal's actions with effects off and checks every recorded
/// snapshot is reproduced byte for byte.
struct ReplayCommand {
  let console: Console
  let global: Global

  /// Its arguments are read against `CommandTable.replay`: one journal file, `--to SEQ`.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    // The reader has checked FILE is there.
    let file = arguments.positionals[0]
    let stop = arguments.count(CommandTable.Replay.to)
    // A FIFO or a device would block the peek below, or never end.
    if let problem = RegularFile.problem(at: file) { throw problem }
    let instances = try Isolation.factory(arguments)
    // The worker starts while the journal is read and its plugin found.
    instances.prepare()
    defer { InstanceFactory.discardPrepared() }
    if NavigationJournal.isNavigationJournal(file) {
      return try replayNavigation(file, stop: stop, instances: instances)
    }
    let result = try replay(file, stop: stop, printsViews: true, instances: instances)
    console.note("replayed \(result.applied) action(s) of \(file); \(result.checked) snapshot(s) matched byte for byte")
    return result.damaged ? 1 : 0
  }

  /// Replays where a session went: each navigation, then the features it ended on, each from its
  /// own journal (snapshots checked), drawn as the user last saw them.
  private func replayNavigation(_ file: String, stop: Int?, instances: InstanceFactory) throws(HostError) -> Int32 {
    let (flow, records, torn) = try NavigationJournal.read(at: file)
    if torn { console.warn("navigation journal '\(file)': the last line was torn by a crash and is ignored") }
    var last: NavigationJournal.Record?
    for record in records {
      if let stop, record.seq > stop { break }
      let top = record.frames.last?.features.map(\.id).joined(separator: ",") ?? ""
      console.out("did navigate flow=\(flow) step=\(record.step) to=\(top)")
      last = record
    }
    guard let top = last?.frames.last else {
      console.note("the session never navigated")
      return 0
    }
    // The journals' paths are relative to the sessions folder, two levels above this file.
    let root = ((file as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    var applied = 0
    var damaged = false
    for feature in top.features {
      if top.features.count > 1 { console.out("── \(feature.id) ──") }
      let result = try replay("\(root)/\(feature.journal)", stop: nil, printsViews: false, instances: instances)
      console.out(result.view)
      applied += result.applied
      damaged = damaged || result.damaged
    }
    console.note("replayed \(records.count) navigation(s) and \(applied) action(s) of the features shown last")
    return damaged ? 1 : 0
  }

  /// Replays one feature's journal; prints each changed view when `printsViews`.
  private func replay(
    _ file: String, stop: Int?, printsViews: Bool, instances: InstanceFactory
  ) throws(HostError) -> (view: String, applied: Int, checked: Int, damaged: Bool) {
    let journal = try Journal.read(path: file)
    if let torn = journal.tornTail { console.warn("\(torn)") }
    let found = global.discover()
    guard let record = found.plugin(id: journal.header.feature) else {
      throw HostError(
        "journal '\(file)' is of feature '\(journal.header.feature)', which is not among the plugins found",
        help: "known features: \(found.ids.joined(separator: ", ")); add its folder with --plugins DIR")
    }
    // Isolated, a worker loads it: no code of it runs here.
    let plugin = instances.runsPluginsHere ? try record.load() : record.described()
    if plugin.manifest.version != journal.header.featureVersion {
      console.warn(
        "journal '\(file)' was recorded with \(plugin.id) \(journal.header.featureVersion); replaying with \(plugin.manifest.version)"
      )
    }
    let instance = try instances.makeInstance(
      of: plugin, config: journal.header.config ?? "{}", target: SilentTarget())
    defer { instance.destroy() }
    var lastView: String?
    var applied = 0
    var checked = 0
    func renderFailed(after seq: Int?, _ error: PluginCallError) -> HostError {
      HostError("journal '\(file)'\(seq.map { " seq \($0)" } ?? ""): \(plugin.id) could not render: \(error)")
    }
    func shown(_ view: String) {
      if printsViews && view != lastView { console.out(view) }
      lastView = view
    }
    func show() throws(HostError) {
      do {
        shown(try instance.render())
      } catch {
        throw renderFailed(after: nil, error)
      }
    }
    // The actions since the last other record, each reduced then drawn, in batches: an instance
    // in another process gets them without a round trip each. Answered in order, as one by one.
    var run: [JournalAction] = []
    func applyRun() throws(HostError) {
      defer { run.removeAll(keepingCapacity: true) }
      let failure = instance.performInBatches(
        run, calls: { [.reduce($0.json), .render] },
        answered: { _, call, answer in
          if case .render = call { shown(answer.text) } else { applied += 1 }
        })
      guard let failure else { return }
      let (action, error) = (failure.item, failure.error)
      if failure.call == .render { throw renderFailed(after: action.seq, error) }
      if let loss = error.loss {
        throw HostError(
          "journal '\(file)' seq \(action.seq): \(plugin.id) \(loss) while replaying \(action.json)",
          help:
            "replay with a build of \(plugin.id) that does not crash, or with --to \(action.seq - 1) for the state before"
        )
      }
      throw HostError(
        "journal '\(file)' seq \(action.seq): \(plugin.id) refused \(action.json): \(error)",
        help: "the journal may come from another version of the feature")
    }
    // A line whose JSON does not parse ends the replay there, named; the rest cannot be trusted.
    let (records, damage) = try journal.records(stoppingAtDamage: true)
    for record in records {
      if let stop, record.seq > stop { break }
      if case .action(let action) = record {
        run.append(action)
        continue
      }
      try applyRun()
      switch record {
      case .action:
        break  // gathered into the run above
      case .snapshot(let seq, let state):
        let actual: String
        do {
          actual = try instance.snapshot()
        } catch {
          throw HostError("journal '\(file)' seq \(seq): \(plugin.id) could not snapshot: \(error)")
        }
        guard JournalRecord.oneLine(actual) == state else {
          throw HostError(
            "journal '\(file)' seq \(seq): the replayed state differs from the recorded snapshot\n"
              + "  recorded: \(state)\n  replayed: \(JournalRecord.oneLine(actual) ?? actual)",
            help: "the feature is not deterministic, or the journal comes from another version of it")
        }
        checked += 1
      case .travel(let travel):
        do {
          try instance.restore(travel.state)
        } catch {
          throw HostError("journal '\(file)' seq \(travel.seq): \(plugin.id) refused the state travelled to: \(error)")
        }
        try show()
      case .crash(let crash):
        // Nothing to apply: the host restarted from the state replayed so far.
        let applying =
          crash.action.map { "while applying \($0)" } ?? (crash.call.isEmpty ? "between calls" : "during \(crash.call)")
        console.note("journal '\(file)' seq \(crash.seq): \(plugin.id) was lost (\(crash.loss)) \(applying)")
      case .refusal(let refusal):
        // Refused when recorded: not sent again; the state after it is the one before it.
        console.note(
          "journal '\(file)' seq \(refusal.seq): \(plugin.id) refused the \(refusal.source.rawValue) action "
            + "\(refusal.action): \(refusal.error)")
      case .reload(let reload):
        // Replayed with the current build throughout; the snapshot after it is checked as any.
        console.note(
          "journal '\(file)' seq \(reload.seq): \(reload.feature) was reloaded (\(reload.from.version) -> "
            + "\(reload.to.version), build \(reload.to.hash))")
      }
    }
    try applyRun()
    if lastView == nil { try show() }
    let reachedDamage = damage != nil && (stop.map { $0 > (records.last?.seq ?? 0) } ?? true)
    if let damage, reachedDamage {
      console.report(
        HostError(
          "journal '\(file)' line \(damage.line) \(damage.problem); replayed the \(applied) action(s) before it",
          help: "running the session again restores the state before that line and moves the rest aside"))
    }
    return (lastView ?? "", applied, checked, reachedDamage)
  }
}
