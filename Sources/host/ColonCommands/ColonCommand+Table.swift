import HostKit

extension ColonCommand {
  /// Every `:` command, in the order help and the "unknown command" error list them.
  static let all: [ColonCommand] = [
    ColonCommand(name: "help", aliases: ["h", "?"], help: "the feature's actions and these commands") { call in
      call.console.out(help(call.runtime.manifest(of: call.feature)))
      return .goOn
    },
    ColonCommand(name: "state", help: "print the state as one line of JSON") { call throws(HostError) in
      call.console.out(try call.runtime.state(of: call.feature))
      return .goOn
    },
    ColonCommand(name: "view", help: "print the whole view (a long list in full)") { call in
      if let view = call.runtime.view(of: call.feature) { call.console.out(view) }
      return .goOn
    },
    ColonCommand(name: "settle", help: "wait (bounded) until nothing is queued and no effect is in flight") { call in
      call.runtime.settle()
      return .goOn
    },
    ColonCommand(name: "resume", help: "go on after a pause (Ctrl-C during a regulation, or the runaway guard)") {
      call throws(HostError) in
      try call.runtime.resume(call.feature)
      return .goOn
    },
    ColonCommand(
      name: "check", help: "check the contract now: state round trip, clean view, journal replays to it"
    ) { call throws(HostError) in
      do throws(ContractViolation) {
        let state = try call.runtime.probe(call.feature)
        try call.runtime.checkReplay(call.feature, state: state)
      } catch {
        throw HostError("\(call.feature.id): \(error)", help: "fix the feature: 'host explore' finds such sequences")
      }
      call.console.out(checkPassed(call.feature.id))
      return .goOn
    },
    ColonCommand(
      name: "history", help: "every seq ':goto' takes: the start, each action (with its source), each travel"
    ) { call throws(HostError) in
      let lines = try call.runtime.seqs(of: call.feature).map(historyLine)
      call.console.out((lines.isEmpty ? ["(no actions yet)"] : lines).joined(separator: "\n"))
      return .goOn
    },
    ColonCommand(name: "undo", help: "back to the state before the last action") { call throws(HostError) in
      call.console.out("back at seq \(try call.runtime.undo(call.feature))")
      return .goOn
    },
    ColonCommand(name: "redo", help: "forward again after ':undo'") { call throws(HostError) in
      call.console.out("forward at seq \(try call.runtime.redo(call.feature))")
      return .goOn
    },
    ColonCommand(name: "goto", argument: .seq, help: "the state after action SEQ") { call throws(HostError) in
      guard let seq = Int(call.argument), seq >= 0 else {
        throw HostError(
          "':goto' needs a seq, got '\(call.argument)'", help: "':history' lists the seqs, e.g. ':goto 3'")
      }
      try call.runtime.goto(seq, in: call.feature)
      call.console.out("at seq \(seq)")
      return .goOn
    },
    ColonCommand(name: "save", argument: .file, help: "write the state as JSON to a new FILE") {
      call throws(HostError) in
      try save(call, replacing: false)
    },
    ColonCommand(name: "save!", argument: .file, help: "write the state as JSON, replacing FILE") {
      call throws(HostError) in
      try save(call, replacing: true)
    },
    ColonCommand(name: "load", argument: .file, help: "replace the state with a saved one") {
      call throws(HostError) in
      guard !call.argument.isEmpty else {
        throw HostError("':load' needs a file", help: "e.g. ':load state.json' (written by ':save')")
      }
      try call.runtime.load(from: call.argument, into: call.feature)
      call.console.out("loaded '\(call.argument)'")
      return .goOn
    },
    ColonCommand(name: "open", argument: .featureID, help: "present feature ID over the current one") {
      call throws(HostError) in
      try call.runtime.open(try featureID(call, verb: "open"))
      return .goOn
    },
    ColonCommand(name: "back", help: "go back to the one before") { call throws(HostError) in
      try call.runtime.back()
      return .goOn
    },
    ColonCommand(name: "focus", argument: .featureID, help: "send input to ID, one of the features shown at once") {
      call throws(HostError) in
      try call.runtime.focus(try featureID(call, verb: "focus"))
      return .goOn
    },
    ColonCommand(
      name: "reload", help: "load the plugin file again, keeping the state (--watch does it on a change)"
    ) { call throws(HostError) in
      try call.runtime.reload(call.feature)
      return .goOn
    },
    ColonCommand(name: "quit", aliases: ["q", "exit"], help: "stop every feature and leave") { _ in .quit },
  ]

  /// What `:check` prints when the feature keeps the contract.
  static func checkPassed(_ id: String) -> String {
    "\(id) keeps the contract here: round trip, view and replay hold"
  }

  /// `:help`: the feature's actions, then the commands.
  static func help(_ manifest: Manifest) -> String {
    var lines = ["\(manifest.name) \(manifest.version) (\(manifest.id)): \(manifest.description)", "", "actions:"]
    let width = manifest.actions.map { ActionLine.usage($0).count }.max() ?? 0
    for action in manifest.actions {
      let usage = ActionLine.usage(action)
      lines.append("  \(usage)\(String(repeating: " ", count: width - usage.count))  \(action.help)")
      for argument in action.arguments where !argument.help.isEmpty {
        lines.append("      \(argument.name): \(argument.help)")
      }
    }
    lines += ["  {\"type\": ...}  any action as raw JSON", "", "commands:"]
    return (lines + helpLines).joined(separator: "\n")
  }

  /// One line of `:history`: the seq, what it was, and for an action left out of the current
  /// state (undone, or travelled away from) a mark that says so.
  static func historyLine(_ entry: JournalHistory.Entry) -> String {
    let seq = String(entry.seq).leftPadded(to: 6)
    switch entry.kind {
    case .start:
      return "\(seq)  \("start".padding(toLength: 10))(the state before the first action)"
    case .action(let action, let effective):
      let mark = effective ? "" : "  (not in the current state)"
      return "\(seq)  \(action.source.rawValue.padding(toLength: 10))\(action.json)\(mark)"
    case .travel(let travel):
      let what =
        switch (travel.kind, travel.to) {
        case (.undo, let to?): "back to seq \(to)"
        case (.redo, let to?): "forward to seq \(to)"
        case (_, let to?): "to seq \(to)"
        case (_, nil): "a state loaded from a file"
        }
      return "\(seq)  \(travel.kind.rawValue.padding(toLength: 10))\(what)"
    }
  }

  /// `:save FILE` and `:save! FILE` (see `SessionRuntime.save`).
  private static func save(_ call: Call, replacing: Bool) throws(HostError) -> Next {
    guard !call.argument.isEmpty else {
      throw HostError("':save' needs a file", help: "e.g. ':save state.json'; ':load state.json' reads it back")
    }
    try call.runtime.save(call.feature, to: call.argument, replacing: replacing)
    call.console.out("saved the state to '\(call.argument)'")
    return .goOn
  }

  /// The feature id `:open` and `:focus` need.
  private static func featureID(_ call: Call, verb: String) throws(HostError) -> String {
    guard !call.argument.isEmpty else {
      throw HostError(
        "':\(verb)' needs a feature id",
        help: "features: \(call.plugins.map(\.id).joined(separator: ", ")) ('host list' shows them)")
    }
    return call.argument
  }
}
