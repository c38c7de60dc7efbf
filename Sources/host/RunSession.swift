import FeatureJSON
import HostKit

/// `host run`: reads lines, hands actions and `:` commands to a session runtime, prints answers.
///
/// The runtime launches, settles, draws and journals the features; this type owns only the input
/// loop and the table of `:` commands, which serves dispatch, `:help` and "did you mean".
final class RunSession {
  struct Settings {
    var maxFeedbackSteps = 10_000
    var settleTimeout: Duration = .seconds(10)
    /// The named session the first feature journals into and restores from; without one every
    /// feature journals into a temporary file that time travel uses and that is removed at exit.
    var session: String?
    /// Whether `--config` was given (a restored session keeps the config it was created with).
    var configGiven = false
    /// Writes `will navigate` / `did navigate` lines to stderr.
    var logsNavigation = false
    /// Where each feature's instance runs (`--isolation`).
    var instances: InstanceFactory = .inProcess
    /// How features are reloaded (`--watch`, `:reload`).
    var reload = ReloadSettings()
    /// `--config ID.KEY=VALUE`: a JSON object per feature id, given to it wherever it is opened.
    var featureConfigs: [String: String] = [:]
    /// The longest input line taken (`--max-line-bytes`); longer ones are skipped with an error.
    var maxLineBytes = BoundedLineReader.defaultLimit
  }

  private let console: Console
  private let plugins: [PluginRecord]
  private let flow: Flow
  /// The config of the feature `host run ID` names (the flow's first feature).
  private let config: String
  private let settings: Settings

  init(console: Console, plugins: [PluginRecord], flow: Flow, config: String, settings: Settings) {
    self.console = console
    self.plugins = plugins
    // The home menu's picks open what is picked whatever the flow (`host run home`, `:open home`).
    self.flow = plugins.contains { $0.id == HomeMenu.id } ? HomeMenu.withPicks(flow) : flow
    self.config = config
    self.settings = settings
  }

  func run() throws(HostError) -> Int32 {
    var engine = SessionRuntime.Settings()
    engine.maxFeedbackSteps = settings.maxFeedbackSteps
    engine.settleTimeout = settings.settleTimeout
    engine.session = settings.session
    engine.configGiven = settings.configGiven
    engine.logsNavigation = settings.logsNavigation
    engine.instances = settings.instances
    engine.reload = settings.reload
    // At a terminal views are drawn for its width as it is at each render (a resize is followed).
    let console = self.console
    if console.outputIsTerminal { engine.renderHints = { RenderHints(columns: console.columns) } }
    let plugins = self.plugins
    let config = self.config
    let scoped = settings.featureConfigs
    let images = console.imageViews()
    defer { images?.close() }
    // In a pipe, a closed feature wakes the reader: the run may have ended with it.
    let wake = console.inputIsTerminal ? nil : WakePipe()
    if let wake { engine.featureClosed = { wake.signal() } }
    let runtime = SessionRuntime(
      plugins: plugins, flow: flow, settings: engine,
      renderers: [LineRenderer(sink: console, live: console.inputIsTerminal, images: images)], reporter: console
    ) { plugin, number in
      // The home menu offers the features found; the first other feature gets `--config`.
      if plugin.id == HomeMenu.id { return HomeMenu.config(offering: plugins) }
      let general = number == 1 ? config : "{}"
      guard let own = scoped[plugin.id] else { return general }
      return Self.merged(general, own)
    }
    defer { runtime.close() }
    try runtime.open()
    let interactive = console.inputIsTerminal
    if interactive {
      console.note("type an action, ':help' for help, ':quit' to leave")
    }
    // At a terminal, the line editor reads; a pipe is read as it always was.
    let terminal = interactive ? TerminalInput(console: console, plugins: plugins) : nil
    let signals = RunSignals(runtime: runtime, console: console, input: terminal)
    defer {
      // Closed (journals committed, temporary folder removed) while a late SIGHUP is still caught.
      runtime.close()
      signals.cancel()
    }
    var quit = false
    if !interactive {
      var input = PipeInput(runtime: runtime, console: console, limit: settings.maxLineBytes) {
        line, number throws(HostError) in try self.perform(line, runtime: runtime, inputLine: number)
      }
      input.wake = wake?.readEnd ?? -1
      quit = input.run()
    }
    // At a terminal without the line editor, lines are read plainly, as long as the limit.
    let plain = terminal == nil ? BoundedLineReader(limit: settings.maxLineBytes) : nil
    // A feature closed after crashing, with nothing to go back to, ends the run (status 1).
    reading: while interactive && !quit && !runtime.hasEndedByClosing && signals.leavingSignal == nil {
      let line: String
      if let terminal {
        switch terminal.read(runtime) {
        case .line(let text): line = text
        case .cancelled: continue reading
        case .end: break reading
        }
      } else if let plain {
        console.prompt("\(runtime.focused?.id ?? "host")> ")
        guard let read = plain.next() else { break }
        console.promptAnswered()
        switch read {
        case .success(let text): line = text
        case .failure(let error):
          console.report(error)
          continue reading
        }
      } else {
        break
      }
      // `:quit` or Ctrl-D typed while the line is handled (a stuck call) ends the run at once.
      let watch = terminal.flatMap { _ in TypeAheadWatch(runtime: runtime, console: console, isQuit: Self.isQuit) }
      quit = handle(line, runtime: runtime)
      if let (leaving, typed) = watch?.stop() {
        console.unmute()
        quit = quit || leaving
        terminal?.typeAhead(typed)
      }
    }
    // Leaving a terminal while a call does not return ends the call now, not at its timeout.
    if interactive, let id = runtime.abandonStuckCall(grace: TypeAheadWatch.stuckAfter) {
      console.note(TypeAheadWatch.leaving(id))
    }
    let leaving = signals.leavingSignal
    // In a pipe, the end of input waits for effects (not after ':quit' or a signal) and draws the
    // final view.
    runtime.finish(settling: !interactive && !quit && leaving == nil)
    if let leaving { return 128 + leaving }
    // A journal that failed to write is a failure of the run, even when a retry saved it later.
    return runtime.hasEndedByClosing || runtime.hadJournalTrouble ? 1 : 0
  }

  /// Two JSON objects' members, `over`'s winning.
  static func merged(_ base: String, _ over: String) -> String {
    var members = (try? JSONValue.parse(base))?.objectValue ?? [:]
    members.merge((try? JSONValue.parse(over))?.objectValue ?? [:]) { _, new in new }
    return JSONValue.object(members).serialized()
  }

  /// Handles one input line; returns true to quit. At a terminal a wait over half a second shows
  /// a progress line.
  private func handle(_ line: String, runtime: SessionRuntime) -> Bool {
    let text = line.trimmingWhitespace()
    if text.isEmpty || text.hasPrefix("#") { return false }
    guard let feature = runtime.focused else { return true }
    guard console.showsProgress else { return reporting(text, runtime: runtime) }
    let settling =
      text.hasPrefix(":") && Self.command(named: String(text.dropFirst().prefix { $0 != " " }))?.name == "settle"
    let progress = WaitProgress(console: console) {
      guard settling else { return "waiting for \(feature.id); Ctrl-C interrupts it" }
      let effects = feature.store.effectsRunning
      return "waiting for \(feature.id) to settle"
        + (effects > 0 ? " (\(effects) effect\(effects == 1 ? "" : "s") running)" : "") + "; Ctrl-C stops waiting"
    }
    defer { progress.end() }
    return reporting(text, runtime: runtime)
  }

  /// Performs one line, reporting what goes wrong; returns true to quit.
  private func reporting(_ text: String, runtime: SessionRuntime) -> Bool {
    do throws(HostError) {
      return try perform(text, runtime: runtime)
    } catch {
      console.report(error)
      return false
    }
  }

  /// Handles one input line (`inputLine`: its number in a pipe, which a refusal by the plugin
  /// carries); returns true to quit, throws what goes wrong.
  private func perform(_ line: String, runtime: SessionRuntime, inputLine: Int? = nil) throws(HostError) -> Bool {
    let text = line.trimmingWhitespace()
    if text.isEmpty || text.hasPrefix("#") { return false }
    guard let feature = runtime.focused else { return true }
    guard text.hasPrefix(":") else {
      try Self.refuseCommandWithoutColon(text, feature: feature)
      let action = feature.id == HomeMenu.id ? HomeMenu.action(for: text) : text
      try runtime.send(action, to: feature, inputLine: inputLine)
      return false
    }
    let words = String(text.dropFirst()).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    let name = words.first ?? ""
    guard let command = Self.command(named: name) else {
      let names = Self.commands.map(\.name)
      let hint = Suggestion.closest(to: name, in: names).map { "did you mean ':\($0)'? " } ?? ""
      throw HostError(
        "unknown command ':\(Excerpt.of(name))'",
        help: "\(hint)commands: \(names.map { ":" + $0 }.joined(separator: ", "))")
    }
    let call = Call(
      runtime: runtime, feature: feature, argument: words.dropFirst().joined(separator: " "), console: console,
      plugins: plugins)
    return try command.run(call) == .quit
  }

  // MARK: - The `:` commands

  /// The command `name` names: its name, an alias, or a prefix of one name only (`:o` is `:open`).
  static func command(named name: String) -> Command? {
    if let exact = commands.first(where: { $0.name == name || $0.aliases.contains(name) }) { return exact }
    let prefixed = commands.filter { !name.isEmpty && $0.name.hasPrefix(name) }
    return prefixed.count == 1 ? prefixed[0] : nil
  }

  /// Whether `line` is `:quit` (by a name, an alias or a prefix).
  @Sendable static func isQuit(_ line: String) -> Bool {
    line.hasPrefix(":") && command(named: String(line.dropFirst().prefix { $0 != " " }))?.name == "quit"
  }

  /// `help`, `quit` or `exit` typed without the colon, when the feature has no such action.
  static func refuseCommandWithoutColon(_ text: String, feature: PresentedFeature) throws(HostError) {
    guard ["help", "quit", "exit"].contains(text),
      !feature.plugin.manifest.actions.contains(where: { $0.type == text })
    else { return }
    let command = text == "exit" ? "quit" : text
    throw HostError(
      "'\(text)' is not an action of \(feature.id)", help: "host commands start with ':': type ':\(command)'")
  }

  /// What a command is run with.
  struct Call {
    let runtime: SessionRuntime
    /// The focused feature, the one the command is for.
    let feature: PresentedFeature
    /// The words after the command's name.
    let argument: String
    let console: Console
    let plugins: [PluginRecord]
  }

  enum Next { case goOn, quit }

  /// One `:` command: its names, its argument, its line in `:help`, and what it does.
  struct Command: Sendable {
    let name: String
    var aliases: [String] = []
    var argument: String?
    let help: String
    let run: @Sendable (Call) throws(HostError) -> Next

    var usage: String { ":\(name)" + (argument.map { " \($0)" } ?? "") }
  }

  /// Every `:` command, in the order `:help` and the "unknown command" help list them.
  static let commands: [Command] = [
    Command(name: "help", aliases: ["h", "?"], help: "the feature's actions and these commands") { call in
      call.console.out(help(call.runtime.manifest(of: call.feature)))
      return .goOn
    },
    Command(name: "state", help: "print the state as JSON") { call throws(HostError) in
      call.console.out(try call.runtime.state(of: call.feature))
      return .goOn
    },
    Command(name: "view", help: "print the whole view (a long list in full)") { call in
      if let view = call.runtime.view(of: call.feature) { call.console.out(view) }
      return .goOn
    },
    Command(name: "settle", help: "wait for effects to finish") { call in
      call.runtime.settle()
      return .goOn
    },
    Command(name: "resume", help: "go on after a pause (Ctrl-C during a regulation, or the runaway guard)") {
      call throws(HostError) in
      try call.runtime.resume(call.feature)
      return .goOn
    },
    Command(name: "history", help: "every seq ':goto' takes: the start, the actions, the travels") {
      call throws(HostError) in
      let lines = try call.runtime.seqs(of: call.feature).map(historyLine)
      call.console.out((lines.isEmpty ? ["(no actions yet)"] : lines).joined(separator: "\n"))
      return .goOn
    },
    Command(name: "undo", help: "back to the state before the last action") { call throws(HostError) in
      call.console.out("back at seq \(try call.runtime.undo(call.feature))")
      return .goOn
    },
    Command(name: "redo", help: "forward again after ':undo'") { call throws(HostError) in
      call.console.out("forward at seq \(try call.runtime.redo(call.feature))")
      return .goOn
    },
    Command(name: "goto", argument: "SEQ", help: "the state after action SEQ") { call throws(HostError) in
      guard let seq = Int(call.argument), seq >= 0 else {
        throw HostError(
          "':goto' needs a seq, got '\(call.argument)'", help: "':history' lists the seqs, e.g. ':goto 3'")
      }
      try call.runtime.goto(seq, in: call.feature)
      call.console.out("at seq \(seq)")
      return .goOn
    },
    Command(name: "save", argument: "FILE", help: "write the state as JSON to a new file") { call throws(HostError) in
      try save(call, replacing: false)
    },
    Command(name: "save!", argument: "FILE", help: "write the state as JSON, replacing FILE") {
      call throws(HostError) in
      try save(call, replacing: true)
    },
    Command(name: "load", argument: "FILE", help: "replace the state with a saved one") { call throws(HostError) in
      guard !call.argument.isEmpty else {
        throw HostError("':load' needs a file", help: "e.g. ':load state.json' (written by ':save')")
      }
      try call.runtime.load(from: call.argument, into: call.feature)
      call.console.out("loaded '\(call.argument)'")
      return .goOn
    },
    Command(name: "open", argument: "ID", help: "present another feature over this one") { call throws(HostError) in
      try call.runtime.open(try featureID(call, verb: "open"))
      return .goOn
    },
    Command(name: "back", help: "go back to the one before") { call throws(HostError) in
      try call.runtime.back()
      return .goOn
    },
    Command(name: "focus", argument: "ID", help: "type into ID, one of the features shown") { call throws(HostError) in
      try call.runtime.focus(try featureID(call, verb: "focus"))
      return .goOn
    },
    Command(name: "reload", help: "load the plugin file again, keeping the state") { call throws(HostError) in
      try call.runtime.reload(call.feature)
      return .goOn
    },
    Command(name: "quit", aliases: ["q", "exit"], help: "stop and leave") { _ in .quit },
  ]

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

  /// `:help`: the feature's actions, then the commands.
  static func help(_ manifest: PluginManifest) -> String {
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
    let commandWidth = commands.map(\.usage.count).max() ?? 0
    for command in commands {
      lines.append("  \(command.usage.padding(toLength: commandWidth))  \(command.help)")
    }
    return lines.joined(separator: "\n")
  }
}
