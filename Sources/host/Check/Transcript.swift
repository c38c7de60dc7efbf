/// A transcript: what a person types to the host and exactly what the host prints back, checked by
/// `host check FILE...`.
///
/// The format (plain text, one item per line):
///
///     # A comment. Blank lines are ignored too.
///     $ host run counter                 a section: the host command, as typed in a shell
///     > increment                        a line typed on the host's stdin
///     > :state
///     {"clicks":1,"count":1}             a line the host printed on stdout
///     > incremnt
///     ! error: unknown action 'incremnt' for counter      a line it printed on stderr
///     ! help: did you mean 'increment'? ...
///     ^D                                 end of input (stdin closed); then what it printed last
///     Counter
///       count:  1
///       clicks: 1
///     [exit 1]                           the exit status, when it is not 0
///
/// - The output lines after a `$`, `>` or `^D` line are what the host printed in answer to that
///   line, before it read the next one. Each stream's order is checked; the order between a stdout
///   line and a `!` line answering the same input is not (they are separate pipes).
/// - `host run` in a pipe prints the final view when its input ends or at `:quit`, so a section
///   ends with `^D` and the final view, or with `> :quit` and the final view. Effects run in real
///   time: type `> :settle` before output that depends on them.
/// - A stdout line that is empty, blank, or starts with `#`, `$`, `>`, `!`, `\`, `^D` or `[exit` is
///   written with a leading `\`, which is dropped (`\` alone is an empty line). `!` alone is an
///   empty stderr line.
/// - A file may hold several sections; each runs its own host process, in order.
/// - In a `$` line: `NAME=value` words before `host` set environment variables; single or double
///   quotes keep spaces; `$TESTDIR` (or `${TESTDIR}`) is the absolute folder of the transcript,
///   here and in expected output.
struct Transcript: Sendable, Equatable {
  /// One output line, on the stream it was printed to.
  enum Output: Sendable, Equatable {
    case stdout(String)
    case stderr(String)
  }

  /// A line of the file, as parsed.
  enum Line: Sendable, Equatable {
    case blank(String)
    case comment(String)
    case command(String)
    case input(String)
    case endOfInput
    case output(Output)
    case exit(Int32)
  }

  /// What the expected output answers.
  enum StepKind: Sendable, Equatable {
    /// The host starting, before any input.
    case start
    /// One line typed on stdin.
    case input(String)
    /// stdin closed.
    case endOfInput
  }

  struct Step: Sendable, Equatable {
    var kind: StepKind
    /// The index in `lines` of the `$`, `>` or `^D` line; nil for an end of input the file omits.
    var line: Int?
    var expected: [Output]
  }

  /// One `$ host ...` line and what follows it, up to the next one.
  struct Section: Sendable, Equatable {
    var line: Int
    /// `NAME=value` words before `host`.
    var environment: [String: String]
    /// The words after `host`, `$TESTDIR` expanded.
    var arguments: [String]
    /// The start, each input, then the end of input (always last, written in the file or not).
    var steps: [Step]
    var exitStatus: Int32
  }

  /// Why a transcript cannot be read; `line` counts from 1.
  struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    var line: Int
    var message: String
    var description: String { "line \(line): \(message)" }

    init(line: Int, message: String) {
      self.line = line
      self.message = message
    }
  }

  /// Every line of the file, in order, parsed.
  var lines: [Line]
  /// Every line of the file as written.
  var rawLines: [String]
  var sections: [Section]
  /// The value of `$TESTDIR`.
  var directory: String

  /// Parses `text`; `directory` is the transcript's folder, the value of `$TESTDIR`.
  init(parsing text: String, directory: String) throws(ParseError) {
    self.directory = directory
    lines = []
    rawLines = []
    sections = []
    var fileLines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if fileLines.last == "" { fileLines.removeLast() }
    for (index, raw) in fileLines.enumerated() {
      let raw = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
      rawLines.append(raw)
      let line = try Self.classify(raw, number: index + 1, directory: directory)
      lines.append(line)
      try add(line, at: index)
    }
  }

  private static func classify(_ raw: String, number: Int, directory: String) throws(ParseError) -> Line {
    if raw.trimmingWhitespace().isEmpty { return .blank(raw) }
    if raw.hasPrefix("#") { return .comment(raw) }
    if raw.hasPrefix("$") { return .command(raw) }
    if raw.hasPrefix(">") { return .input(raw.hasPrefix("> ") ? String(raw.dropFirst(2)) : String(raw.dropFirst())) }
    if raw == "^D" { return .endOfInput }
    if raw.hasPrefix("!") {
      let text = raw.hasPrefix("! ") ? String(raw.dropFirst(2)) : String(raw.dropFirst())
      return .output(.stderr(expand(text, directory: directory)))
    }
    if raw.hasPrefix("\\") { return .output(.stdout(expand(String(raw.dropFirst()), directory: directory))) }
    if raw.hasPrefix("[exit") {
      guard raw.hasSuffix("]"), let status = Int32(String(raw.dropFirst(5).dropLast()).trimmingWhitespace()) else {
        throw ParseError(line: number, message: "'\(raw)' is not an exit status; write [exit N]")
      }
      return .exit(status)
    }
    if raw.hasPrefix("^D") {
      throw ParseError(line: number, message: "'\(raw)': end of input is '^D' alone on its line")
    }
    return .output(.stdout(expand(raw, directory: directory)))
  }

  private mutating func add(_ line: Line, at index: Int) throws(ParseError) {
    func fail(_ message: String) -> ParseError { ParseError(line: index + 1, message: message) }
    switch line {
    case .blank, .comment:
      return
    case .command(let text):
      let words = try Self.words(String(text.dropFirst()), line: index + 1, directory: directory)
      var environment: [String: String] = [:]
      var rest = words[...]
      while let word = rest.first, let equals = word.firstIndex(of: "="), word != "host",
        Self.isVariableName(word[..<equals])
      {
        environment[String(word[..<equals])] = String(word[word.index(after: equals)...])
        rest = rest.dropFirst()
      }
      guard rest.first == "host" else {
        throw fail("a section starts with '$ host ...' (a host command), got '\(text)'")
      }
      sections.append(
        Section(
          line: index, environment: environment, arguments: Array(rest.dropFirst()),
          steps: [Step(kind: .start, line: index, expected: [])], exitStatus: 0))
    case .input(let text):
      guard var section = sections.popLast() else { throw fail("input before the first '$ host ...' line") }
      if section.steps.last?.kind == .endOfInput { throw fail("input after '^D' (end of input)") }
      section.steps.append(Step(kind: .input(text), line: index, expected: []))
      sections.append(section)
    case .endOfInput:
      guard var section = sections.popLast() else { throw fail("'^D' before the first '$ host ...' line") }
      if section.steps.last?.kind == .endOfInput { throw fail("a second '^D' in one section") }
      section.steps.append(Step(kind: .endOfInput, line: index, expected: []))
      sections.append(section)
    case .output(let output):
      guard var section = sections.popLast() else {
        throw fail("output before the first '$ host ...' line (a comment starts with '#')")
      }
      section.steps[section.steps.count - 1].expected.append(output)
      sections.append(section)
    case .exit(let status):
      guard var section = sections.popLast() else { throw fail("[exit] before the first '$ host ...' line") }
      section.exitStatus = status
      sections.append(section)
    }
  }

  /// The sections, each ending with an end-of-input step (added when the file has none).
  var runnableSections: [Section] {
    sections.map { section in
      var section = section
      if section.steps.last?.kind != .endOfInput {
        section.steps.append(Step(kind: .endOfInput, line: nil, expected: []))
      }
      return section
    }
  }

  private static func isVariableName(_ text: Substring) -> Bool {
    guard let first = text.first, first.isLetter || first == "_" else { return false }
    return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
  }

  /// Replaces `$TESTDIR` and `${TESTDIR}` with `directory`.
  static func expand(_ text: String, directory: String) -> String {
    guard text.contains("$") else { return text }
    return text.replacing("${TESTDIR}", with: directory).replacing("$TESTDIR", with: directory)
  }

  /// Splits a command line as a shell would for plain words: spaces separate, single or double
  /// quotes keep spaces, a backslash outside single quotes keeps the next character.
  static func words(_ text: String, line: Int, directory: String) throws(ParseError) -> [String] {
    var words: [String] = []
    var current = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in text {
      if escaped {
        current.append(character)
        escaped = false
      } else if character == "\\" && quote != "'" {
        escaped = true
        inWord = true
      } else if let open = quote {
        if character == open { quote = nil } else { current.append(character) }
      } else if character == "'" || character == "\"" {
        quote = character
        inWord = true
      } else if character == " " || character == "\t" {
        if inWord { words.append(expand(current, directory: directory)) }
        current = ""
        inWord = false
      } else {
        current.append(character)
        inWord = true
      }
    }
    if let open = quote { throw ParseError(line: line, message: "unterminated \(open) in '$\(text)'") }
    if inWord { words.append(expand(current, directory: directory)) }
    return words
  }
}
