import FeatureJSON
import HostKit
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The terminal: stdout for results and views, stderr for errors, colors only on a TTY without
/// NO_COLOR. Thread-safe: the store thread prints views while the main thread reads input.
final class Console: Sendable {
  let inputIsTerminal = isatty(STDIN_FILENO) == 1
  let outputIsTerminal = isatty(STDOUT_FILENO) == 1
  let errorIsTerminal = isatty(STDERR_FILENO) == 1
  /// Colours unless NO_COLOR is set to something (an empty NO_COLOR does not count) or the
  /// terminal is `dumb`.
  private let colors = (getenv("NO_COLOR").map { $0.pointee == 0 } ?? true) && !Console.isDumbTerminal
  /// TERM=dumb: no colour and no cursor movement (no line editor, no clearing of the prompt).
  static let isDumbTerminal = getenv("TERM").map { String(cString: $0) == "dumb" } ?? false
  /// What sits on the last line of the screen, if anything: the prompt waiting for input (and
  /// the line typed after it, where lines are read without the line editor), or a wait's
  /// progress line. Output that arrives meanwhile (a view an effect changed) clears it first and
  /// draws it again after.
  private struct BottomLine {
    var prompt: String?
    var typed = ""
    var progress: String?
    var shown: String? { progress ?? prompt.map { $0 + typed } }
  }
  private let lock = Locked(BottomLine())
  /// Set while the run leaves at once (`:quit` on a stuck call): what the line under way still
  /// prints is not shown.
  private let muted = Atomic<Bool>(false)

  /// Writes lines to stdout, sanitized: no control sequence in them reaches the terminal.
  func out(_ text: String) { print(TerminalText.sanitized(text), to: STDOUT_FILENO) }

  /// Writes lines to stderr, sanitized.
  func err(_ text: String) { print(TerminalText.sanitized(text), to: STDERR_FILENO) }

  /// Writes `text` as it is: the caller sanitized what came from elsewhere. At a terminal, lines
  /// wider than it are wrapped to its width, read at each write so a resized window is followed at
  /// once; a pipe gets the text unchanged.
  private func print(_ text: String, to descriptor: Int32, evenMuted: Bool = false) {
    guard evenMuted || !muted.load(ordering: .acquiring) else { return }
    let text = fitted(text, to: descriptor)
    // While the line editor reads, output goes above its prompt and the typed line; else it is
    // written under the editor's lock, so that a read cannot draw its prompt meanwhile.
    guard let editor = LineEditor.current else { return printAboveBottomLine(text, to: descriptor) }
    editor.printAbove(text, to: descriptor) { printAboveBottomLine(text, to: descriptor) }
  }

  /// Writes `text`, taking the prompt or progress line off the screen first and drawing it
  /// again under the text, at any width and at a dumb terminal too.
  private func printAboveBottomLine(_ text: String, to descriptor: Int32) {
    lock.withLock { bottom in
      guard let shown = bottom.shown, outputIsTerminal else { return write(descriptor, text + "\n") }
      write(STDOUT_FILENO, Self.erasing(shown, columns: TerminalSize.columns(of: STDOUT_FILENO) ?? 80))
      write(descriptor, text + "\n")
      write(STDOUT_FILENO, shown)
    }
  }

  /// What takes `shown`, the last thing written (the cursor after it), off the screen: up to its
  /// first row and cleared from there. A dumb terminal can neither move up nor clear: a line
  /// that fits is blanked with spaces, a longer one is left and a new line begun under it.
  static func erasing(_ shown: String, columns: Int) -> String {
    let width = TerminalWrap.width(shown)
    let columns = max(columns, 1)
    guard !isDumbTerminal else {
      return width < columns ? "\r" + String(repeating: " ", count: width) + "\r" : "\n"
    }
    // The cursor stays on the last row after filling it (the wrap is pending).
    let rowsUp = max(width - 1, 0) / columns
    return (rowsUp > 0 ? "\u{1B}[\(rowsUp)A" : "") + "\r\u{1B}[J"
  }

  /// `text` wrapped to the width of the terminal `descriptor` writes to; as it is elsewhere.
  private func fitted(_ text: String, to descriptor: Int32) -> String {
    let terminal = descriptor == STDOUT_FILENO ? outputIsTerminal : errorIsTerminal
    guard terminal, let columns = TerminalSize.columns(of: descriptor) else { return text }
    return TerminalWrap.wrapped(text, columns: columns)
  }

  /// The width of the terminal on stdout, nil for a pipe.
  var columns: Int? { outputIsTerminal ? TerminalSize.columns(of: STDOUT_FILENO) : nil }

  /// An error (and its help line) on stderr, with `error:` in red on a terminal, and `line N:`
  /// after it for an error about a line of input read from a pipe.
  func report(_ error: HostError) {
    let error = error.worded
    let line = error.inputLine.map { "line \($0): " } ?? ""
    // Messages quote input and plugin text: sanitized, each quoted part cut at 200 characters.
    var lines = [paint("error:", code: "1;31", on: errorIsTerminal) + " " + line + TerminalText.message(error.message)]
    if let help = error.help {
      lines.append(paint("help:", code: "1;36", on: errorIsTerminal) + " " + TerminalText.message(help))
    }
    print(lines.joined(separator: "\n"), to: STDERR_FILENO)
  }

  func warn(_ message: String) {
    print(paint("warning:", code: "1;33", on: errorIsTerminal) + " " + TerminalText.message(message), to: STDERR_FILENO)
  }

  /// Stops showing output until `unmute` (the run is leaving; the line under way is dropped).
  func mute() { muted.store(true, ordering: .releasing) }

  func unmute() { muted.store(false, ordering: .releasing) }

  /// A note shown even while muted: why the run leaves.
  func leavingNote(_ message: String) { note(message, evenMuted: true) }

  func note(_ message: String, evenMuted: Bool = false) {
    print(
      paint("note:", code: "1", on: errorIsTerminal) + " " + TerminalText.message(message), to: STDERR_FILENO,
      evenMuted: evenMuted)
  }

  /// `text` as the line editor's prompt: dim where colours are on, the escapes marked as taking
  /// no room (libedit's `\u{1}` brackets) so it counts columns right.
  func editorPrompt(_ text: String) -> String {
    outputIsTerminal && colors ? "\u{1}\u{1B}[2m\u{2}\(text)\u{1}\u{1B}[0m\u{2}" : text
  }

  /// A result line on stdout, `pass` in green and `fail` in red where colours are on, as `error:`
  /// and `warning:` are: `word` then `rest` (sanitized).
  func result(_ word: String, passed: Bool, _ rest: String) {
    print(
      paint(word, code: passed ? "32" : "1;31", on: outputIsTerminal) + TerminalText.sanitized(rest), to: STDOUT_FILENO)
  }

  /// Bold on a terminal, plain otherwise.
  func heading(_ text: String) -> String { paint(text, code: "1", on: outputIsTerminal) }

  /// Shows the input prompt, on a terminal only.
  func prompt(_ text: String) {
    guard inputIsTerminal else { return }
    let painted = paint(text, code: "2", on: outputIsTerminal)
    lock.withLock { bottom in
      bottom.prompt = painted
      write(STDOUT_FILENO, painted)
    }
  }

  /// The user pressed return: the prompt is no longer waiting.
  func promptAnswered() {
    lock.withLock { bottom in
      bottom.prompt = nil
      bottom.typed = ""
    }
  }

  /// The line typed after the prompt is now `typed`; `echo` shows the change (the keys typed, or
  /// what erases one). For a reader without the line editor, whose typing the terminal does
  /// not echo: output drawn meanwhile draws the line again under it.
  func typed(_ typed: String, echo: String) {
    lock.withLock { bottom in
      bottom.typed = typed
      write(STDOUT_FILENO, echo)
    }
  }

  /// Whether waits show a progress line: input and output at a terminal that can move the cursor.
  var showsProgress: Bool { inputIsTerminal && outputIsTerminal && !Self.isDumbTerminal }

  /// Draws `text` as the progress line, in place of the one before, cut to the terminal's width
  /// so it stays one line (which `\r` can erase).
  func showProgress(_ text: String) {
    let width = max(1, (columns ?? 80) - 1)
    let line = text.count > width ? String(text.prefix(width - 1)) + "…" : text
    lock.withLock { bottom in
      bottom.progress = line
      write(STDOUT_FILENO, "\r\u{1B}[K" + line)
    }
  }

  /// Erases the progress line, if one is drawn.
  func clearProgress() {
    lock.withLock { bottom in
      guard bottom.progress != nil else { return }
      bottom.progress = nil
      write(STDOUT_FILENO, "\r\u{1B}[K")
    }
  }

  /// Writes all of `text` to `descriptor` (see `TerminalOutput`).
  private func write(_ descriptor: Int32, _ text: String) { TerminalOutput.write(descriptor, text) }

  private func paint(_ text: String, code: String, on terminal: Bool) -> String {
    terminal && colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }
}

/// The line renderer writes views to stdout.
extension Console: LineSink {
  /// The renderer sanitized the views; the headings are the host's own.
  func writeLines(_ text: String) { print(text, to: STDOUT_FILENO) }
}

/// The runtime's errors and notices go to stderr, in the CLI's words.
extension Console: RuntimeReporter {
  func notice(_ notice: RuntimeNotice) {
    switch notice.level {
    case .note: note(notice.commandLineText)
    case .warning: warn(notice.commandLineText)
    case .log: err(notice.commandLineText)
    }
  }
}
