import FeatureABI
import Foundation
import HostKit

/// One feature running in the terminal: reads lines, sends actions, prints views and errors.
final class RunSession {
  struct Settings {
    var maxFeedbackSteps = 10_000
    var settleTimeout: Duration = .seconds(10)
    /// The named session to journal into and restore from; nil journals into a temporary file
    /// that time travel uses and that is removed at exit.
    var session: String?
    /// Whether `--config` was given (a restored session keeps the config it was created with).
    var configGiven = false
  }

  private let console: Console
  private let plugin: LoadedPlugin
  private let config: String
  private let settings: Settings

  init(console: Console, plugin: LoadedPlugin, config: String, settings: Settings) {
    self.console = console
    self.plugin = plugin
    self.config = config
    self.settings = settings
  }

  /// The journal of this run and how the instance gets its first state.
  private struct Journaling {
    var journal: SessionJournal
    var config: String
    var restorePoint: JournalRestorePoint?
    /// Removed at exit: the journal of a run without --session.
    var temporaryFolder: String?
  }

  private func openJournal() throws(HostError) -> Journaling {
    guard let name = settings.session else {
      let folder = try Self.temporaryFolder()
      let journal = try SessionJournal.create(at: "\(folder)/run.jsonl", plugin: plugin, config: config)
      return Journaling(journal: journal, config: config, restorePoint: nil, temporaryFolder: folder)
    }
    let directory = try SessionDirectory.default()
    let path = try directory.path(for: name)
    guard try directory.contains(name) else {
      try directory.ensureExists()
      let journal = try SessionJournal.create(at: path, plugin: plugin, config: config)
      return Journaling(journal: journal, config: config, restorePoint: nil, temporaryFolder: nil)
    }
    let opened = try SessionJournal.open(at: path, plugin: plugin)
    if let torn = opened.tornTail { console.warn("\(torn)") }
    if settings.configGiven && opened.config != config {
      console.warn("session '\(name)' keeps the config it was created with, \(opened.config); --config is ignored")
    }
    return Journaling(
      journal: opened.journal, config: opened.config, restorePoint: opened.restorePoint, temporaryFolder: nil)
  }

  private static func temporaryFolder() throws(HostError) -> String {
    var template = Array((NSTemporaryDirectory() + "featurehost-run-XXXXXX").utf8CString)
    guard let folder = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
      throw HostError("cannot create a temporary folder for the run's journal: \(String(cString: strerror(errno)))")
    }
    return String(cString: folder)
  }

  func run() throws(HostError) -> Int32 {
    let interactive = console.inputIsTerminal
    let id = plugin.id
    let journaling = try openJournal()
    defer {
      if let folder = journaling.temporaryFolder { try? FileManager.default.removeItem(atPath: folder) }
    }
    self.journal = journaling.journal
    let store: Store
    do {
      store = try makeStore(config: journaling.config, journal: journaling.journal)
    } catch {
      journaling.journal.close()
      throw error
    }
    do {
      if let point = journaling.restorePoint {
        try store.start(restored: true) { instance throws(HostError) in try point.apply(to: instance) }
      } else {
        let journal = journaling.journal
        try store.start(restored: false) { instance throws(HostError) in
          let state: String
          do {
            state = try instance.snapshot()
          } catch {
            throw HostError("feature '\(id)' could not snapshot its first state: \(error)")
          }
          try journal.recordInitialState(state)
        }
      }
    } catch {
      store.stop()
      throw error
    }
    return finish(store: store, interactive: interactive)
  }

  private var journal: SessionJournal?

  private func makeStore(config: String, journal: SessionJournal) throws(HostError) -> Store {
    let interactive = console.inputIsTerminal
    let console = self.console
    let id = plugin.id
    return try Store(
      plugin: plugin, config: config,
      options: Store.Options(maxFeedbackSteps: settings.maxFeedbackSteps, rendersViews: interactive),
      journal: journal
    ) { event in
      switch event {
      case .viewChanged(let view):
        console.out(view)
      case .rejected(let action, let source, let error):
        console.report(
          HostError(
            "\(id) refused the \(source.rawValue) action \(action): \(error)",
            help: source == .user ? "the state is unchanged; ':help' lists the actions and their arguments" : nil))
      case .paused(let error):
        console.report(error)
      case .log(let level, let message):
        if level >= fh_log_level(FH_LOG_WARNING) { console.warn("\(id): \(message)") }
      case .journalFailed(let error):
        console.report(error)
        console.warn("\(id) goes on without a journal: what happens from now on is not recorded")
      case .applied:
        break
      }
    }
  }

  private func finish(store: Store, interactive: Bool) -> Int32 {
    let id = plugin.id
    if interactive {
      console.note(
        "\(plugin.manifest.name) \(plugin.manifest.version): type an action, ':help' for help, ':quit' to leave")
    }
    var quit = false
    while !quit {
      console.prompt("\(id)> ")
      guard let line = readLine(strippingNewline: true) else { break }
      console.promptAnswered()
      quit = handle(line, store: store)
    }
    if !interactive {
      if !quit { settle(store) }
      if let view = store.perform({ try? $0.render() }) { console.out(view) }
    }
    let report = store.stop()
    if report.unapplied > 0 {
      console.note("\(report.unapplied) action(s) still queued when \(id) stopped were not applied")
    }
    if report.late > 0 {
      console.warn("\(id) emitted \(report.late) action(s) after it was stopped; they were ignored")
    }
    return 0
  }

  /// Handles one input line; returns true to quit.
  private func handle(_ line: String, store: Store) -> Bool {
    let text = line.trimmingWhitespace()
    if text.isEmpty || text.hasPrefix("#") { return false }
    guard text.hasPrefix(":") else {
      do {
        store.send(try ActionLine.parse(text, manifest: plugin.manifest), source: .user)
        // At a terminal, draw the view of a quick action before the next prompt.
        if console.inputIsTerminal { _ = store.waitUntilSettled(timeout: .milliseconds(250)) }
      } catch {
        console.report(error)
      }
      return false
    }
    let words = String(text.dropFirst()).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    let command = words.first ?? ""
    let argument = words.dropFirst().joined(separator: " ")
    switch command {
    case "history":
      timeTravel(store) { (journal, _) throws(HostError) -> String in
        let actions = try journal.effectiveActions()
        let lines = actions.map {
          "\(String($0.seq).leftPadded(to: 6))  \($0.source.rawValue.padding(toLength: 10))\($0.json)"
        }
        return (lines.isEmpty ? ["(no actions yet)"] : lines).joined(separator: "\n")
      }
    case "undo":
      timeTravel(store) { (journal, instance) throws(HostError) -> String in
        "back at seq \(try journal.undo(on: instance))"
      }
    case "redo":
      timeTravel(store) { (journal, instance) throws(HostError) -> String in
        "forward at seq \(try journal.redo(on: instance))"
      }
    case "goto":
      guard let seq = Int(argument), seq >= 0 else {
        console.report(
          HostError("':goto' needs a seq, got '\(argument)'", help: "':history' lists the seqs, e.g. ':goto 3'"))
        return false
      }
      timeTravel(store) { (journal, instance) throws(HostError) -> String in
        try journal.goto(seq, on: instance)
        return "at seq \(seq)"
      }
    case "save":
      save(to: argument, store: store)
    case "load":
      guard !argument.isEmpty else {
        console.report(HostError("':load' needs a file", help: "e.g. ':load state.json' (written by ':save')"))
        return false
      }
      let state: String
      do {
        state = try String(contentsOfFile: argument, encoding: .utf8)
      } catch {
        console.report(HostError("cannot read '\(argument)': \(error.localizedDescription)", help: "check the path"))
        return false
      }
      timeTravel(store) { (journal, instance) throws(HostError) -> String in
        try journal.load(state.trimmingWhitespace(), on: instance)
        return "loaded '\(argument)'"
      }
    case "quit", "q", "exit":
      return true
    case "help", "h", "?":
      console.out(help())
    case "state":
      switch store.perform({ instance in Result { () throws(PluginCallError) in try instance.snapshot() } }) {
      case .success(let state): console.out(state)
      case .failure(let error): console.report(HostError("\(plugin.id) could not snapshot its state: \(error)"))
      }
    case "view":
      if let view = store.perform({ try? $0.render() }) { console.out(view) }
    case "settle":
      settle(store)
    case "resume":
      if store.isPaused {
        store.resume()
      } else {
        console.report(HostError("\(plugin.id) is not paused", help: "':resume' only follows a runaway-guard pause"))
      }
    default:
      let commands = [
        "help", "state", "view", "settle", "resume", "history", "undo", "redo", "goto", "save", "load", "quit",
      ]
      let hint = Suggestion.closest(to: command, in: commands).map { "did you mean ':\($0)'? " } ?? ""
      console.report(
        HostError(
          "unknown command ':\(command)'",
          help: "\(hint)commands: \(commands.map { ":" + $0 }.joined(separator: ", "))"))
    }
    return false
  }

  /// Runs a journal command on the store thread, after everything queued before it; prints its
  /// answer on stdout, or its error.
  private func timeTravel(
    _ store: Store, _ body: @escaping (SessionJournal, PluginInstance) throws(HostError) -> String
  ) {
    guard let journal else { return }
    let result: Result<String, HostError> = store.perform { instance in
      do throws(HostError) {
        let answer = try body(journal, instance)
        store.invalidateView()
        return .success(answer)
      } catch {
        return .failure(error)
      }
    }
    switch result {
    case .success(let answer): console.out(answer)
    case .failure(let error): console.report(error)
    }
  }

  /// `:save FILE`: the state as JSON, written whole or not at all.
  private func save(to path: String, store: Store) {
    guard !path.isEmpty else {
      console.report(
        HostError("':save' needs a file", help: "e.g. ':save state.json'; ':load state.json' reads it back"))
      return
    }
    let result = store.perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }
    do {
      let state = try result.get()
      try (state + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      console.out("saved the state to '\(path)'")
    } catch let error as PluginCallError {
      console.report(HostError("\(plugin.id) could not snapshot its state: \(error)"))
    } catch {
      console.report(
        HostError(
          "cannot write '\(path)': \(error.localizedDescription)", help: "check the folder exists and is writable"))
    }
  }

  private func settle(_ store: Store) {
    switch store.waitUntilSettled(timeout: settings.settleTimeout) {
    case .settled, .stopped:
      break
    case .paused:
      console.note("\(plugin.id) is paused by the runaway guard; ':resume' to go on")
    case .timedOut:
      console.report(
        HostError(
          "\(plugin.id) did not settle within \(settings.settleTimeout) (\(store.effectsRunning) effect(s) in flight)",
          help: "raise --settle-timeout, or check what the feature is waiting for"))
    }
  }

  private func help() -> String {
    let manifest = plugin.manifest
    var lines = ["\(manifest.name) \(manifest.version) (\(manifest.id)): \(manifest.description)", "", "actions:"]
    let width = manifest.actions.map { ActionLine.usage($0).count }.max() ?? 0
    for action in manifest.actions {
      let usage = ActionLine.usage(action)
      lines.append("  \(usage)\(String(repeating: " ", count: width - usage.count))  \(action.help)")
      for argument in action.arguments where !argument.help.isEmpty {
        lines.append("      \(argument.name): \(argument.help)")
      }
    }
    lines += [
      "  {\"type\": ...}  any action as raw JSON", "",
      "commands:",
      "  :state   print the state as JSON      :view    print the view",
      "  :settle  wait for effects to finish   :resume  go on after a runaway-guard pause",
      "  :history the actions that made the state   :undo  :redo  :goto SEQ   travel through them",
      "  :save FILE  write the state as JSON   :load FILE  replace the state with a saved one",
      "  :help    this help                    :quit    stop and leave",
    ]
    return lines.joined(separator: "\n")
  }
}
