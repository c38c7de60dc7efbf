import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// The input loop of `host run` when stdin is not a terminal: lines read in chunks, no prompt,
/// and a bare action word (`increment`) looked up in a table made from the focused feature's
/// catalogue instead of parsed again on every line. Other actions (with arguments, JSON) are
/// parsed as a typed line is and streamed the same way; `:` commands go the way a typed line goes.
///
/// Every error about a line says its number (`error: line 7: ...`), and errors come out in input
/// order: a refusal by the plugin is reported by its store as it applies the action, later than
/// the line was read, so before it reports an error of its own this loop waits until the
/// features have handled what the lines before sent them. Only a line in error waits (and a
/// change of the feature lines go to); the others stream on.
struct PipeInput {
  let runtime: SessionRuntime
  let console: Console
  /// The longest line taken (`--max-line-bytes`); a longer one is skipped with an error.
  let limit: Int
  /// The action object a line sends to the feature, parsed; nil when the line is no action.
  let action: (String, PresentedFeature) throws(HostError) -> String?
  /// Handles a line (with its number) the general way; true to quit.
  let handle: (String, Int) throws(HostError) -> Bool
  /// Readable when a feature closed (`RunSettings.featureClosed`): the loop looks at
  /// `hasEndedByClosing` without waiting for another line.
  var wake: Int32 = -1

  /// Reads until the end of input or a quit; returns whether it was a quit.
  func run() -> Bool {
    var reader = ChunkedLineReader(descriptor: 0, maximumLineLength: limit, wake: wake)
    var words = ActionWords()
    var lineNumber = 0
    // The feature the last line went to: lines to another one wait until it handled them, so
    // its refusals come before theirs.
    var target: ObjectIdentifier?
    // The focused feature, taken again only when navigation may have moved it.
    var focused: PresentedFeature?
    var focusVersion = UInt64.max
    while !runtime.hasEndedByClosing {
      guard let next = reader.next() else { return false }
      if next == .woken { continue }
      lineNumber += 1
      guard case .text(let line) = next else {
        if case .tooLong(let length) = next {
          report(Self.tooLong(bytes: length, limit: limit), line: lineNumber)
        }
        continue
      }
      let version = runtime.focusedNowVersion
      if version != focusVersion {
        focusVersion = version
        focused = runtime.focusedNow
      }
      guard let feature = focused else { return true }
      let focus = ObjectIdentifier(feature)
      if target != focus {
        if target != nil { runtime.waitUntilInputHandled() }
        target = focus
      }
      if let action = words.action(for: line, of: feature) {
        runtime.sendParsed(action, to: feature, inputLine: lineNumber)
        continue
      }
      do throws(HostError) {
        // Not through `handle`: a typed line's round trip to the navigation queue is not needed
        // here (`sendParsed` waits for navigation when the feature has steps).
        if let parsed = try action(line, feature) {
          runtime.sendParsed(parsed, to: feature, inputLine: lineNumber)
          continue
        }
        if try handle(line, lineNumber) { return true }
      } catch {
        report(error, line: lineNumber)
      }
    }
    return false
  }

  /// Reports `error` as being about input line `line`, after whatever the lines before it caused.
  private func report(_ error: HostError, line: Int) {
    runtime.waitUntilInputHandled()
    var error = error
    error.inputLine = line
    console.report(error)
  }

  /// A line longer than `limit` bytes, skipped.
  static func tooLong(bytes: Int, limit: Int) -> HostError {
    HostError(
      "the line is \(bytes) bytes, more than the \(limit) a line may have; it was skipped",
      help: "an action or a command fits on one short line; a big state goes in a file (':load FILE'), "
        + "or raise the limit with --max-line-bytes")
  }
}

/// The actions without arguments of one feature, by the word that sends them.
private struct ActionWords {
  private var feature: ObjectIdentifier?
  /// A catalogue's few words are compared in turn (a short word's `==` is a comparison of two
  /// integers, where a dictionary hashes every line); many go in `table`.
  private var few: [(word: String, json: String)] = []
  private var table: [String: String] = [:]
  private static let fewest = 8

  /// The action object `line` sends when it is just an action word of `feature`'s catalogue.
  mutating func action(for line: String, of feature: PresentedFeature) -> String? {
    if self.feature != ObjectIdentifier(feature) {
      self.feature = ObjectIdentifier(feature)
      let manifest = feature.plugin.manifest
      // The very object the general path makes of the word.
      let words = manifest.actions.filter(\.arguments.isEmpty).compactMap { action in
        (try? ActionLine.parse(action.type, manifest: manifest)).map { (word: action.type, json: $0) }
      }
      few = words.count <= Self.fewest ? words : []
      table = words.count <= Self.fewest ? [:] : Dictionary(words, uniquingKeysWith: { first, _ in first })
    }
    guard table.isEmpty else { return table[line] }
    for entry in few where entry.word == line { return entry.json }
    return nil
  }
}
