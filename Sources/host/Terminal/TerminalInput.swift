import HostKit

/// The input of `host run` at a terminal: the line editor with the focused feature's prompt,
/// history and completion; plain lines where libedit cannot be loaded.
struct TerminalInput {
  private let console: Console
  private let editor: LineEditor?
  /// Where the editor is not: a dumb terminal, or no libedit.
  private let plain: PlainLineReader?
  private let features: [String]

  init(console: Console, plugins: [PluginRecord]) {
    self.console = console
    features = plugins.map(\.id)
    // A dumb terminal cannot take the editor's cursor movement: it gets plain lines.
    editor = Console.isDumbTerminal ? nil : LineEditor.start(historyFolder: LineEditor.defaultHistoryFolder())
    plain = editor == nil ? PlainLineReader() : nil
  }

  /// Whether Ctrl-C at the prompt cancels the line (the editor has it) rather than the process.
  var edits: Bool { editor != nil }

  /// The next line for `runtime`'s focused feature.
  func read(_ runtime: SessionRuntime) -> LineEditor.Input {
    let id = runtime.focused?.id ?? "host"
    let prompt = "\(id)> "
    let quiet = QuietTerminal()
    defer { quiet.restore() }
    guard let editor else {
      console.prompt(prompt)
      defer { console.promptAnswered() }
      guard let plain else { return readLine(strippingNewline: true).map { .line($0) } ?? .end }
      return plain.read(console)
    }
    let completion =
      runtime.focused.map { Completion(manifest: $0.plugin.manifest, commands: ColonCommand.all, features: features) }
      ?? Completion(actions: [], commands: ColonCommand.all, features: features)
    let console = self.console
    // A page being loaded shows in the prompt; a regulation's timers do not (it draws itself).
    let busy = runtime.focused.map { feature in { feature.store.effectsAwaited > 0 } }
    return editor.read(
      prompt: LineEditor.Prompt(name: id, paint: { console.editorPrompt($0) }, busy: busy), feature: id,
      completion: completion)
  }

  /// Ctrl-C: cancels the line being typed; false when none is being read.
  func interrupt() -> Bool { editor?.interrupt() ?? plain?.interrupt() ?? false }

  /// Ends the read under way and all later ones.
  func end() {
    editor?.end()
    plain?.end()
  }

  /// Keys typed while a line was handled, read before the terminal's own.
  func typeAhead(_ bytes: [UInt8]) {
    guard !bytes.isEmpty else { return }
    editor?.typeAhead(bytes)
    plain?.typeAhead(bytes)
  }

  /// The terminal was resized: the prompt and line are drawn again.
  func redraw() { editor?.redraw() }
}
