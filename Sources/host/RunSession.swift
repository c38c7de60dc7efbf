import FeatureABI
import HostKit

/// One feature running in the terminal: reads lines, sends actions, prints views and errors.
final class RunSession {
  struct Settings {
    var maxFeedbackSteps = 10_000
    var settleTimeout: Duration = .seconds(10)
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

  func run() throws(HostError) -> Int32 {
    let interactive = console.inputIsTerminal
    let console = self.console
    let id = plugin.id
    let store = try Store(
      plugin: plugin, config: config,
      options: Store.Options(maxFeedbackSteps: settings.maxFeedbackSteps, rendersViews: interactive)
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
      case .applied:
        break
      }
    }
    do {
      try store.start()
    } catch {
      store.stop()
      throw error
    }
    if interactive {
      console.note("\(plugin.manifest.name) \(plugin.manifest.version): type an action, ':help' for help, ':quit' to leave")
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
    let command = String(text.dropFirst()).split(separator: " ").first.map(String.init) ?? ""
    switch command {
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
      let commands = ["help", "state", "view", "settle", "resume", "quit"]
      let hint = Suggestion.closest(to: command, in: commands).map { "did you mean ':\($0)'? " } ?? ""
      console.report(
        HostError(
          "unknown command ':\(command)'",
          help: "\(hint)commands: \(commands.map { ":" + $0 }.joined(separator: ", "))"))
    }
    return false
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
      "  :help    this help                    :quit    stop and leave",
    ]
    return lines.joined(separator: "\n")
  }
}
