import HostKit

/// `host replay FILE`: applies a journal's actions with effects off and checks every recorded
/// snapshot is reproduced byte for byte.
struct ReplayCommand {
  static let usage = """
    usage: host [--plugins DIR]... replay FILE [--to SEQ]

    Replays a journal (a session file, see 'host sessions') through its feature's plugin with
    effects off: no network, no timers, no feedbacks; the actions they produced are in the journal.
    Prints each view that changed. Every snapshot in the journal must be reproduced byte for
    byte; a mismatch is an error naming the seq (exit 1). --to SEQ stops after that seq.
    """

  let console: Console
  let global: Global

  func run(_ options: [String]) throws(HostError) -> Int32 {
    var file: String?
    var stop: Int?
    var rest = options[...]
    while let option = rest.first {
      rest = rest.dropFirst()
      switch option {
      case "-h", "--help":
        console.out(Self.usage)
        return 0
      case "--to":
        guard let text = rest.first, let seq = Int(text), seq >= 0 else {
          throw .usage("--to needs a seq (0 or more), got '\(rest.first ?? "")'")
        }
        rest = rest.dropFirst()
        stop = seq
      default:
        if option.hasPrefix("-") {
          throw .usage("unknown option '\(option)' for 'replay'", help: HostCLI.suggest(option, ["--to", "--help"]))
        }
        guard file == nil else { throw .usage("'replay' takes one journal file") }
        file = option
      }
    }
    guard let file else { throw .usage("'replay' needs a journal file", help: "usage: host replay FILE [--to SEQ]") }
    let journal = try Journal.read(path: file)
    if let torn = journal.tornTail { console.warn("\(torn)") }
    let found = global.discover()
    guard let plugin = found.plugin(id: journal.header.feature) else {
      throw HostError(
        "journal '\(file)' is of feature '\(journal.header.feature)', which is not among the plugins found",
        help: "known features: \(found.ids.joined(separator: ", ")); add its folder with --plugins DIR")
    }
    if plugin.manifest.version != journal.header.featureVersion {
      console.warn(
        "journal '\(file)' was recorded with \(plugin.id) \(journal.header.featureVersion); replaying with \(plugin.manifest.version)"
      )
    }
    let instance = try PluginInstance(
      plugin: plugin, config: journal.header.config ?? "{}", target: SilentTarget())
    var lastView: String?
    var applied = 0
    var checked = 0
    func show() throws(HostError) {
      let view: String
      do {
        view = try instance.render()
      } catch {
        throw HostError("journal '\(file)': \(plugin.id) could not render: \(error)")
      }
      if view != lastView { console.out(view) }
      lastView = view
    }
    for record in try journal.records() {
      if let stop, record.seq > stop { break }
      switch record {
      case .action(let action):
        do {
          _ = try instance.reduce(action.json)
        } catch {
          throw HostError(
            "journal '\(file)' seq \(action.seq): \(plugin.id) refused \(action.json): \(error)",
            help: "the journal may come from another version of the feature")
        }
        applied += 1
        try show()
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
      }
    }
    console.note("replayed \(applied) action(s) of \(file); \(checked) snapshot(s) matched byte for byte")
    return 0
  }
}

/// A replay runs no effects: nothing should call back, and whatever does is ignored.
private final class SilentTarget: InstanceCallbackTarget {
  func instanceEmitted(_ json: UnsafePointer<CChar>, origin: Int32) {}
  func instanceLogged(level: Int32, message: UnsafePointer<CChar>) {}
  func instanceEffectBegan() {}
  func instanceEffectEnded() {}
}
