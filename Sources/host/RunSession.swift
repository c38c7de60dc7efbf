import FeatureJSON
import HostKit

/// `host run`: reads lines, hands actions and `:` commands to a session runtime, prints answers.
///
/// The runtime launches, settles, draws and journals the features; this type owns only the input
/// loop; the `:` commands it dispatches are `ColonCommand`'s table.
final class RunSession {

  private let console: Console
  private let plugins: [PluginRecord]
  private let flow: Flow
  /// The config of the feature `host run ID` names (the flow's first feature).
  private let config: String
  private let settings: RunSettings
  /// Whether the run serves a devtools page (`--devtools`).
  private let devtools: Bool

  init(
    console: Console, plugins: [PluginRecord], flow: Flow, config: String, settings: RunSettings,
    devtools: Bool = false
  ) {
    self.devtools = devtools
    self.console = console
    self.plugins = plugins
    // The home menu's picks open what is picked whatever the flow (`host run home`, `:open home`).
    self.flow = plugins.contains { $0.id == HomeMenu.id } ? HomeMenu.withPicks(flow) : flow
    self.config = config
    self.settings = settings
  }

  func run() throws(HostError) -> Int32 {
    var settings = self.settings
    // At a terminal views are drawn for its width as it is at each render (a resize is followed).
    let console = self.console
    if console.outputIsTerminal { settings.store.renderHints = { RenderHints(columns: console.columns) } }
    let plugins = self.plugins
    let config = self.config
    let scoped = settings.featureConfigs
    let images = console.imageViews()
    defer { images?.close() }
    // In a pipe, a closed feature wakes the reader: the run may have ended with it.
    let wake = console.inputIsTerminal ? nil : WakePipe()
    if let wake { settings.featureClosed = { wake.signal() } }
    // Checked before anything runs: a page that cannot be served says what to install.
    let page = devtools ? try DevtoolsCommand.pageFolder() : nil
    let hub = devtools ? DevtoolsHub() : nil
    let renderers: [any FeatureRenderer] =
      [LineRenderer(sink: console, live: console.inputIsTerminal, images: images)] + (hub.map { [$0] } ?? [])
    let runtime = SessionRuntime(
      plugins: plugins, flow: flow, settings: settings, renderers: renderers, reporter: console
    ) { plugin, number in
      // The home menu offers the features found; the first other feature gets `--config`.
      if plugin.id == HomeMenu.id { return HomeMenu.config(offering: plugins) }
      let general = number == 1 ? config : "{}"
      guard let own = scoped[plugin.id] else { return general }
      return Self.merged(general, own)
    }
    defer { runtime.close() }
    try runtime.open()
    let server = try page.map { page throws(HostError) in
      try DevtoolsServer(
        subject: LiveDevtools(runtime: runtime), hub: hub ?? DevtoolsHub(), page: page, images: DevtoolsCommand.images()
      )
    }
    defer { server?.stop() }
    if let server { console.err("devtools: \(server.url)") }
    let interactive = console.inputIsTerminal
    if interactive {
      console.note("type an action, ':help' for help, ':quit' to leave")
    }
    // At a terminal, the line editor reads; a pipe is read as it always was.
    let terminal = interactive ? TerminalInput(console: console, plugins: plugins) : nil
    let signals = RunSignals(runtime: runtime, console: console, input: terminal)
    defer {
      // The page's requests end before the runtime they ask closes.
      server?.stop()
      // Closed (journals committed, temporary folder removed) while a late SIGHUP is still caught.
      // The host exits next: its workers are not waited for once they answered their destroy.
      InstanceFactory.workersEndWithHost()
      runtime.close()
      signals.cancel()
    }
    var quit = false
    if !interactive {
      var input = PipeInput(
        runtime: runtime, console: console, limit: settings.maxLineBytes,
        action: { line, feature throws(HostError) in try Self.pipedAction(line, feature: feature, runtime: runtime) },
        handle: { line, number throws(HostError) in try self.perform(line, runtime: runtime, inputLine: number) })
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
    let settling = ColonCommand.typed(in: text)?.name == "settle"
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
      try runtime.send(Self.actionLine(text, feature: feature), to: feature, inputLine: inputLine)
      return false
    }
    let words = String(text.dropFirst()).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    let name = words.first ?? ""
    guard let command = ColonCommand.named(name) else { throw ColonCommand.unknown(name) }
    let call = ColonCommand.Call(
      runtime: runtime, feature: feature, argument: words.dropFirst().joined(separator: " "), console: console,
      plugins: plugins)
    return try command.run(call) == .quit
  }

  /// Whether `line` is `:quit` (by a name, an alias or a prefix).
  @Sendable static func isQuit(_ line: String) -> Bool {
    ColonCommand.typed(in: line)?.name == "quit"
  }

  /// The action line `text` (trimmed, not a command) stands for in `feature`: the home menu's
  /// words and numbers are its own; `help`, `quit` and `exit` without the colon are refused.
  static func actionLine(_ text: String, feature: PresentedFeature) throws(HostError) -> String {
    try refuseCommandWithoutColon(text, feature: feature)
    return feature.id == HomeMenu.id ? HomeMenu.action(for: text) : text
  }

  /// The action object a piped line sends to `feature`, parsed as a typed line is; nil for a
  /// line that is no action (empty, a comment, a `:` command).
  static func pipedAction(_ line: String, feature: PresentedFeature, runtime: SessionRuntime) throws(HostError)
    -> String?
  {
    let text = line.trimmingWhitespace()
    if text.isEmpty || text.hasPrefix("#") || text.hasPrefix(":") { return nil }
    return try ActionLine.parse(actionLine(text, feature: feature), manifest: runtime.manifest(of: feature))
  }

  /// `help`, `quit` or `exit` typed without the colon, when the feature has no such action.
  static func refuseCommandWithoutColon(_ text: String, feature: PresentedFeature) throws(HostError) {
    guard ["help", "quit", "exit"].contains(text),
      !feature.plugin.manifest.actions.contains(where: { $0.type == text })
    else { return }
    let command = ColonCommand.named(text)?.name ?? text
    throw HostError(
      "'\(text)' is not an action of \(feature.id)", help: "host commands start with ':': type ':\(command)'")
  }
}
