import HostKit

/// The input loop of `host run` when stdin is not a terminal: lines read in chunks, no prompt,
/// and a bare action word (`increment`) looked up in a table made from the focused feature's
/// catalogue instead of parsed again on every line. Everything else (`:` commands, actions with
/// arguments, JSON) goes the way a typed line goes.
struct PipeInput {
  let runtime: SessionRuntime
  let console: Console
  /// The longest line taken (`--max-line-bytes`); a longer one is skipped with an error.
  let limit: Int
  /// Handles a line the general way; true to quit.
  let handle: (String) -> Bool

  /// Reads until the end of input or a quit; returns whether it was a quit.
  func run() -> Bool {
    var reader = ChunkedLineReader(descriptor: 0, maximumLineLength: limit)
    var words = ActionWords()
    var lineNumber = 0
    while !runtime.hasEndedByClosing {
      guard let next = reader.next() else { return false }
      lineNumber += 1
      guard case .text(let line) = next else {
        if case .tooLong(let length) = next {
          console.report(BoundedLineReader.tooLong(line: lineNumber, bytes: length, limit: limit))
        }
        continue
      }
      guard let feature = runtime.focusedNow else { return true }
      if let action = words.action(for: line, of: feature) {
        runtime.sendParsed(action, to: feature)
        continue
      }
      if handle(line) { return true }
    }
    return false
  }
}

/// The actions without arguments of one feature, by the word that sends them.
private struct ActionWords {
  private var feature: ObjectIdentifier?
  private var table: [String: String] = [:]

  /// The action object `line` sends when it is just an action word of `feature`'s catalogue.
  mutating func action(for line: String, of feature: PresentedFeature) -> String? {
    if self.feature != ObjectIdentifier(feature) {
      self.feature = ObjectIdentifier(feature)
      let manifest = feature.plugin.manifest
      table = [:]
      for action in manifest.actions where action.arguments.isEmpty {
        // The very object the general path makes of the word.
        if let json = try? ActionLine.parse(action.type, manifest: manifest) { table[action.type] = json }
      }
    }
    return table[line]
  }
}
