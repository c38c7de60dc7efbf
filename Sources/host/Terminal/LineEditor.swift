import FeatureJSON
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// Input at a terminal through libedit: editing keys, history per feature, Tab completion, reverse
/// search (Ctrl-R), output of other threads printed above the prompt, and Ctrl-C that cancels the
/// line. Used only when stdin is a terminal.
///
/// libedit calls back through plain C pointers with no context, so the one editor of the process
/// is reachable as `LineEditor.current`. Its editing state is main-thread-only; what other threads
/// hand it (output, interrupts) goes through `shared` and wakes it through a pipe.
final class LineEditor: WakeableReader {
  /// What the prompt says: `NAME> `; while `busy` has said for over half a second that the
  /// feature is working (a page loading), a spinner and the seconds, `NAME | 1.2 s> `.
  struct Prompt {
    let name: String
    /// The prompt's text as drawn: dim where colours are on, escapes marked as taking no room.
    let paint: (String) -> String
    let busy: (() -> Bool)?

    /// ASCII: libedit decodes the prompt in the C locale, where other characters fail.
    static let frames = Array("-\\|/")
  }

  /// What one `read` gave.
  enum Input: Equatable {
    case line(String)
    /// Ctrl-C: the line was dropped.
    case cancelled
    /// Ctrl-D on an empty line, the terminal gone, or the host asked to end.
    case end
  }

  private struct Shared {
    var reading = false
    var pending: [(descriptor: Int32, text: String)] = []
    var interrupted = false
    var ended = false
    /// The terminal changed size since the line was last drawn.
    var resized = false
  }

  /// The editor libedit's callbacks reach, and threads that print ask for. Set once, by `start`.
  static var current: LineEditor? { started.withLock { $0 } }
  /// Set on the main thread while store threads may be printing already.
  private static let started = Locked<LineEditor?>(nil)

  private let library: LibEdit
  private let shared = Locked(Shared())
  /// Keys typed while a line was handled (`typeAhead`), read before the terminal's.
  private let ahead = Locked<[UInt8]>([])
  /// The pipe other threads write a byte to, to wake the reader.
  let wakePipe: WakePipe
  private let historyFolder: String?
  private static let historyLimit: Int32 = 500

  /// Main-thread state, touched only by `read` and the callbacks it runs.
  private struct Editing {
    var completion = Completion(actions: [], commands: [], features: [])
    var historyID: String?
    var keys: [Int32] = []
    var promptWidth = 0
    var cancelled = false
    var prompt: Prompt?
    /// The prompt text on screen, unpainted.
    var promptShown = ""
    /// Since when `prompt.busy` says the feature is working.
    var busySince: ContinuousClock.Instant?
    var frame = 0
  }
  // Main thread only: `read` and the libedit callbacks it runs.
  nonisolated(unsafe) private var editing = Editing()

  /// The editor, or nil where libedit cannot be loaded. Call once, on the main thread.
  static func start(historyFolder: String?) -> LineEditor? {
    guard current == nil, let library = LibEdit.load() else { return current }
    guard let wakePipe = WakePipe() else { return nil }
    let editor = LineEditor(library: library, wakePipe: wakePipe, historyFolder: historyFolder)
    started.withLock { $0 = editor }
    library.readlineName.pointee = UnsafePointer(strdup("featurehost"))
    // Signals stay with the host's watcher: libedit re-raising them to the process group would
    // also reach the host's own children.
    library.catchSignals.pointee = 0
    // Words end at spaces and `=` only: `:open` is one word, `left=3` two.
    let breaks = UnsafePointer(strdup(" \t\n="))
    library.wordBreakCharacters.pointee = breaks
    library.completerWordBreakCharacters.pointee = breaks
    library.getcFunction.pointee = { _ in LineEditor.current?.nextKey() ?? -1 }
    library.attemptedCompletion.pointee = { text, start, _ in LineEditor.current?.complete(text, start: start) }
    _ = library.initialize()
    // As in a shell: Ctrl-W drops the word before the cursor; Home, End and Delete as most
    // terminals send them.
    for binding in [
      "bind ^W ed-delete-prev-word", "bind ^[[1~ ed-move-to-beg", "bind ^[[4~ ed-move-to-end",
      "bind ^[[3~ ed-delete-next-char",
    ] {
      _ = binding.withCString { library.parseAndBind($0) }
    }
    library.stifleHistory(historyLimit)
    return editor
  }

  private init(library: LibEdit, wakePipe: WakePipe, historyFolder: String?) {
    self.library = library
    self.wakePipe = wakePipe
    self.historyFolder = historyFolder
  }

  /// `$XDG_STATE_HOME/featurehost` (by default `~/.local/state/featurehost`), or nil without a home.
  static func defaultHistoryFolder() -> String? {
    if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/") {
      return state + "/featurehost"
    }
    guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
    return home + "/.local/state/featurehost"
  }

  /// Reads one line after `prompt`, with `feature`'s history and `completion`. Main thread.
  func read(prompt: Prompt, feature: String, completion: Completion) -> Input {
    let text = prompt.name + "> "
    editing.completion = completion
    editing.prompt = prompt
    editing.promptShown = text
    editing.promptWidth = text.count
    editing.busySince = nil
    editing.cancelled = false
    editing.keys = []
    useHistory(of: feature)
    let (ended, resized) = shared.withLock { shared -> (Bool, Bool) in
      defer { shared.resized = false }
      shared.reading = true
      shared.interrupted = false
      return (shared.ended, shared.resized)
    }
    if ended { return .end }
    if resized { library.resizeTerminal() }
    let raw = prompt.paint(text).withCString { library.readline($0) }
    let leftover = shared.withLock { shared -> [(descriptor: Int32, text: String)] in
      shared.reading = false
      defer { shared.pending = [] }
      return shared.pending
    }
    for (descriptor, text) in leftover { Self.write(descriptor, text + "\n") }
    guard let raw else {
      // Ctrl-D leaves the cursor after the prompt: end the line there.
      Self.write(STDOUT_FILENO, "\n")
      return .end
    }
    let line = String(cString: raw)
    free(raw)
    if editing.cancelled { return .cancelled }
    if !line.allSatisfy(\.isWhitespace) { remember(line) }
    return .line(line)
  }

  /// Prints `text` above the prompt while a line is being read; else runs `otherwise` (which
  /// writes it), holding the lock `read` takes before it draws its prompt, so the text can never
  /// land after a prompt that is being drawn. Any thread.
  func printAbove(_ text: String, to descriptor: Int32, otherwise: () -> Void) {
    let queued = shared.withLock { shared -> Bool in
      guard shared.reading else {
        otherwise()
        return false
      }
      shared.pending.append((descriptor, text))
      return true
    }
    if queued { wake() }
  }

  func cancelReading() -> Bool {
    shared.withLock { shared -> Bool in
      if shared.reading { shared.interrupted = true }
      return shared.reading
    }
  }

  func markEnded() { shared.withLock { $0.ended = true } }

  /// The terminal changed size: the prompt and the line are drawn again at the new width. Any
  /// thread.
  func redraw() {
    let reading = shared.withLock { shared -> Bool in
      shared.resized = true
      return shared.reading
    }
    if reading { wake() }
  }

  /// Keys typed while a line was handled: the next reads take them first. Any thread.
  func typeAhead(_ bytes: [UInt8]) { ahead.withLock { $0 += bytes } }

  // MARK: - Main thread, inside readline

  /// The next key for libedit: a queued one, else the next character typed (UTF-8 decoded), while
  /// printing what other threads sent in the meantime. -1 ends the line.
  private func nextKey() -> Int32 {
    if !editing.keys.isEmpty { return nextQueuedKey() }
    if ahead.withLock({ !$0.isEmpty }) { return readCharacter() ?? -1 }
    while true {
      var fds = [
        pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
      ]
      // While the feature may be working, the prompt's progress is looked at ten times a second.
      let ready = poll(&fds, 2, editing.prompt?.busy == nil ? -1 : 100)
      if ready < 0 {
        if errno == EINTR { continue }
        return -1
      }
      if ready == 0 {
        refreshPrompt()
        continue
      }
      if fds[1].revents != 0 {
        wakePipe.drain()
        let (texts, interrupted, ended, resized) = shared.withLock { shared in
          defer {
            shared.pending = []
            shared.interrupted = false
            shared.resized = false
          }
          return (shared.pending, shared.interrupted, shared.ended, shared.resized)
        }
        if resized { library.resizeTerminal() }
        printAbove(texts)
        if ended { return -1 }
        if interrupted { return cancelLine() }
      }
      if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
        guard let key = readCharacter() else { return -1 }
        // Ctrl-C typed while the terminal sends it as a key rather than a signal.
        if key == 3 { return cancelLine() }
        return key
      }
    }
  }

  /// Ctrl-C at the prompt: the cursor goes to the end of the line, `^C` follows it, the line ends
  /// and is dropped, as in a shell.
  private func cancelLine() -> Int32 {
    editing.cancelled = true
    editing.keys = [-2, 10]
    return 5  // Ctrl-E: end of line
  }

  private func nextQueuedKey() -> Int32 {
    let key = editing.keys.removeFirst()
    if key == -2 {
      Self.write(STDOUT_FILENO, "^C")
      return nextQueuedKey()
    }
    return key
  }

  /// One character from stdin: a UTF-8 sequence as its scalar value; nil at the end of input.
  private func readCharacter() -> Int32? {
    guard let lead = readByte() else { return nil }
    let count =
      switch lead {
      case 0xC0...0xDF: 1
      case 0xE0...0xEF: 2
      case 0xF0...0xF7: 3
      default: 0
      }
    guard count > 0 else { return Int32(lead) }
    var value = UInt32(lead) & (0x3F >> UInt32(count))
    for _ in 0..<count {
      guard let next = readByte() else { return nil }
      value = value << 6 | UInt32(next & 0x3F)
    }
    return Int32(bitPattern: value)
  }

  private func readByte() -> UInt8? {
    if let typed = ahead.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return typed }
    var byte: UInt8 = 0
    while true {
      let count = Glibc.read(STDIN_FILENO, &byte, 1)
      if count == 1 { return byte }
      if count < 0 && errno == EINTR { continue }
      return nil
    }
  }

  /// Clears the prompt and the line, prints `texts`, and lets libedit draw both again intact.
  private func printAbove(_ texts: [(descriptor: Int32, text: String)]) {
    clearPromptAndLine()
    for (descriptor, text) in texts { Self.write(descriptor, text + "\n") }
    _ = library.forcedUpdateDisplay()
  }

  /// Moves to the start of the prompt and clears from there down.
  private func clearPromptAndLine() {
    let columns = TerminalSize.columns(of: STDOUT_FILENO) ?? 80
    let rowsUp = (editing.promptWidth + Int(library.point.pointee)) / max(columns, 1)
    Self.write(STDOUT_FILENO, (rowsUp > 0 ? "\u{1B}[\(rowsUp)A" : "") + "\r\u{1B}[J")
  }

  /// Draws the prompt again, the typed line intact, when what it shows changed: after half a
  /// second of the feature working, a spinner and the seconds; the plain prompt once it is done.
  private func refreshPrompt() {
    guard let prompt = editing.prompt, let busy = prompt.busy else { return }
    let now = ContinuousClock.now
    editing.busySince = busy() ? editing.busySince ?? now : nil
    var text = prompt.name + "> "
    if let since = editing.busySince, now - since >= .milliseconds(500) {
      let tenths = Int((now - since).seconds * 10)
      editing.frame += 1
      let frame = Prompt.frames[editing.frame % Prompt.frames.count]
      text = "\(prompt.name) \(frame) \(tenths / 10).\(tenths % 10) s> "
    }
    guard text != editing.promptShown else { return }
    clearPromptAndLine()
    editing.promptShown = text
    editing.promptWidth = text.count
    _ = prompt.paint(text).withCString { library.setPrompt($0) }
    _ = library.forcedUpdateDisplay()
  }

  /// libedit's completion callback: the candidates for the word before the cursor.
  private func complete(_ text: UnsafePointer<CChar>?, start: Int32) -> UnsafeMutablePointer<
    UnsafeMutablePointer<CChar>?
  >? {
    library.attemptedCompletionOver.pointee = 1
    let word = text.map { String(cString: $0) } ?? ""
    var before = ""
    if let buffer = library.lineBuffer.pointee {
      let bytes = UnsafeBufferPointer(
        start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: strlen(buffer))
      before = String(decoding: bytes.prefix(Int(max(start, 0))), as: UTF8.self)
    }
    let matches = editing.completion.candidates(before: before, word: word)
    guard !matches.isEmpty else { return nil }
    library.completionAppendCharacter.pointee = matches.count == 1 && matches[0].hasSuffix("=") ? 0 : 32
    // libedit's list: the common prefix that replaces the word, then each match, then NULL.
    let common = matches.dropFirst().reduce(matches[0]) { prefix, match in
      String(zip(prefix, match).prefix { $0 == $1 }.map(\.0))
    }
    let entries = matches.count == 1 ? [common] : [common] + matches
    // libedit looks at the third entry even after a single match: two NULLs end the list.
    let capacity = entries.count + 2
    guard let list = calloc(capacity, MemoryLayout<UnsafeMutablePointer<CChar>?>.stride) else { return nil }
    let array = list.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: capacity)
    for (index, entry) in entries.enumerated() { array[index] = strdup(entry) }
    return array
  }

  // MARK: - History

  private func historyPath(of feature: String) -> String? {
    historyFolder.map { "\($0)/\(feature).history" }
  }

  /// Switches the history to `feature`'s, read from its file.
  private func useHistory(of feature: String) {
    guard editing.historyID != feature else { return }
    editing.historyID = feature
    library.clearHistory()
    if let path = historyPath(of: feature) { _ = library.readHistory(path) }
  }

  /// Adds `line` to the history and writes the file (bounded: the last `historyLimit` lines).
  private func remember(_ line: String) {
    _ = library.addHistory(line)
    guard let folder = historyFolder, let feature = editing.historyID, let path = historyPath(of: feature) else {
      return
    }
    Self.makeFolder(folder)
    _ = library.writeHistory(path)
  }

  private static func makeFolder(_ path: String) {
    var partial = ""
    for part in path.split(separator: "/") {
      partial += "/" + part
      _ = mkdir(partial, 0o700)
    }
  }

  private static func write(_ descriptor: Int32, _ text: String) { TerminalOutput.write(descriptor, text) }
}
