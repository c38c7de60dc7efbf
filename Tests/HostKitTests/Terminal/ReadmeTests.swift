import FeatureTesting
import Foundation
import HostKit
import Testing

/// Every `$ ./host ...` example of the README runs here and must print what the README shows, so
/// the README and the host cannot drift apart. `...` in an example stands for lines left out.
@Suite(.serialized) struct ReadmeTests {
  /// One `$ COMMAND` line of a ```text block and the lines shown after it.
  struct Example: CustomTestStringConvertible, Sendable {
    let line: Int
    let command: String
    let expected: [String]
    var testDescription: String { "README line \(line): \(command)" }
    /// A session at a terminal: its expected lines hold `ID> typed` prompts.
    var isTerminal: Bool { !command.contains("|") && expected.contains { $0.hasPrefix("counter> ") } }
  }

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  static func readme() throws -> String { try String(contentsOfFile: root + "/README.md", encoding: .utf8) }

  /// The command examples of ```text blocks, in README order.
  static func examples(in readme: String) -> [Example] {
    var examples: [Example] = []
    var inText = false
    var current: (line: Int, command: String, expected: [String])?
    func close() {
      if let current {
        examples.append(Example(line: current.line, command: current.command, expected: current.expected))
      }
      current = nil
    }
    for (index, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let text = String(line)
      if text.hasPrefix("```") {
        close()
        inText = text == "```text"
        continue
      }
      guard inText else { continue }
      if text.hasPrefix("$ ./host") || text.hasPrefix("$ printf ") {
        close()
        current = (index + 1, String(text.dropFirst(2)), [])
      } else if current != nil {
        current?.expected.append(text)
      }
    }
    close()
    return examples
  }

  static let allExamples: [Example] = (try? examples(in: readme())) ?? []

  @Test func theReadmeHasCommandExamples() {
    #expect(Self.allExamples.count >= 8)
  }

  /// The state and cache of the examples: one home for all, since later examples use what earlier
  /// ones made (the session `demo`).
  static let home: String = {
    let folder = NSTemporaryDirectory() + "featurehost-readme-\(getpid())"
    try? FileManager.default.removeItem(atPath: folder)
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }()

  static var environment: [String: String] {
    ["HOME": home, "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache"]
  }

  @Test(arguments: allExamples.filter { !$0.isTerminal })
  func aPipeExamplePrintsWhatTheReadmeShows(_ example: Example) throws {
    let (arguments, input) = try Self.parse(example.command)
    let result = try HostProcess.run(arguments, input: input, environment: Self.environment)
    let problem = Self.mismatch(
      expected: example.expected, streams: [Self.lines(result.stdout), Self.lines(result.stderr)])
    #expect(problem == nil, "\(example.testDescription): \(problem ?? "")")
  }

  @Test(arguments: allExamples.filter(\.isTerminal))
  func aTerminalExampleRunsInAPseudoTerminal(_ example: Example) throws {
    let (arguments, _) = try Self.parse(example.command)
    let host = try PseudoTerminal(arguments, environment: Self.environment)
    var shown: [String] = []
    var before: String?
    for line in example.expected {
      if let prompt = ["counter> ", "levels> "].first(where: line.hasPrefix) {
        // Typed once what the README shows before it is on the screen, at the prompt after it.
        if let before { try host.waitFor(before) }
        try host.waitFor(prompt)
        host.type(String(line.dropFirst(prompt.count)) + "\r")
        before = nil
      } else if line != "..." {
        before = line
      }
      shown.append(line)
    }
    _ = try host.waitForExit()
    let screen = Self.lines(Self.withoutEscapes(host.all))
    let problem = Self.mismatch(expected: shown, streams: [screen], lenient: true)
    #expect(problem == nil, "\(example.testDescription): \(problem ?? "")")
  }

  /// The ```text blocks written as transcripts (`$ host ...` sections).
  static func transcripts(in readme: String) -> [String] {
    readme.components(separatedBy: "```text\n").dropFirst().compactMap { block in
      let body = block.components(separatedBy: "\n```").first ?? ""
      return body.split(separator: "\n").contains { $0.hasPrefix("$ host ") } ? body + "\n" : nil
    }
  }

  @Test func theTranscriptExamplePassesHostCheck() throws {
    let transcripts = Self.transcripts(in: try Self.readme())
    #expect(transcripts.count == 1)
    let scratch = try JournalScratch()
    // Beside the catalog its `$TESTDIR` names, as in Tests/Transcripts.
    try FileManager.default.copyItem(
      atPath: Self.root + "/Tests/Transcripts/kittens-catalog.json", toPath: scratch.file("kittens-catalog.json"))
    for (index, transcript) in transcripts.enumerated() {
      try scratch.write("readme-\(index).transcript", transcript)
      let result = try HostProcess.run(["check", scratch.file("readme-\(index).transcript")])
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
  }

  @Test func theComparisonRefusesAMissingAChangedOrAnExtraLine() {
    #expect(Self.mismatch(expected: ["a", "b"], streams: [["a", "b"], []]) == nil)
    #expect(Self.mismatch(expected: ["a", "...", "c"], streams: [["a", "b", "c"], []]) == nil)
    #expect(Self.mismatch(expected: ["a", "e"], streams: [["a"], ["e"]]) == nil)
    #expect(Self.mismatch(expected: ["a", "b"], streams: [["a"], []]) != nil)
    #expect(Self.mismatch(expected: ["a", "b"], streams: [["a", "c"], []]) != nil)
    #expect(Self.mismatch(expected: ["a"], streams: [["a", "b"], []]) != nil)
    #expect(Self.mismatch(expected: ["b", "a"], streams: [["a", "b"], []]) != nil)
  }

  // MARK: - Running and comparing

  /// `printf 'TEXT' | ./host ARGS` or `./host ARGS`: the arguments and stdin.
  static func parse(_ command: String) throws -> (arguments: [String], input: String) {
    var text = command
    // A trailing comment is for the reader.
    if let comment = text.range(of: "  #") { text = String(text[..<comment.lowerBound]) }
    var input = ""
    if text.hasPrefix("printf '") {
      let rest = text.dropFirst("printf '".count)
      let end = try #require(rest.firstIndex(of: "'"))
      input = rest[..<end].replacingOccurrences(of: "\\n", with: "\n")
      text = String(rest[rest.index(after: end)...]).trimmingCharacters(in: .whitespaces)
      text = String(text.dropFirst("| ".count))
    }
    let words = text.split(separator: " ").map(String.init)
    #expect(words.first == "./host", "an example runs ./host: \(command)")
    let arguments = words.dropFirst().map { word in
      word.replacingOccurrences(of: ".build/release/", with: PluginPaths.buildFolder + "/")
        .replacingOccurrences(of: "$PWD", with: root)
        .replacingOccurrences(of: "~/", with: home + "/")
        // A path in the checkout, as from its folder.
        .replacingOccurrences(of: #"^(docs|Plugins|Tests)/"#, with: root + "/$1/", options: .regularExpression)
    }
    return (Array(arguments), input)
  }

  /// Why `streams` do not show `expected` (nil when they do): every expected line, in order within
  /// its stream, and nothing else but where `...` marks lines left out (`lenient`: anywhere).
  /// Times and the home folder are compared as `TIME` and `~`.
  static func mismatch(expected: [String], streams: [[String]], lenient: Bool = false) -> String? {
    let streams = streams.map { $0.map(normalized) }
    let expected = expected.map(normalized)
    func matches(_ index: Int, _ cursors: [Int], _ gaps: [Bool]) -> Bool {
      guard index < expected.count else {
        return lenient || streams.indices.allSatisfy { gaps[$0] || cursors[$0] == streams[$0].count }
      }
      if expected[index] == "..." { return matches(index + 1, cursors, gaps.map { _ in true }) }
      for (number, stream) in streams.enumerated() {
        let last = gaps[number] || lenient ? stream.count - 1 : min(cursors[number], stream.count - 1)
        guard cursors[number] <= last else { continue }
        for position in cursors[number]...last where stream[position] == expected[index] {
          var nextCursors = cursors
          nextCursors[number] = position + 1
          var nextGaps = gaps
          nextGaps[number] = false
          if matches(index + 1, nextCursors, nextGaps) { return true }
        }
      }
      return false
    }
    if matches(0, streams.map { _ in 0 }, streams.map { _ in false }) { return nil }
    return "the host printed:\n" + streams.map { $0.joined(separator: "\n") }.joined(separator: "\n--- stderr\n")
  }

  static func normalized(_ line: String) -> String {
    var line = line.replacingOccurrences(of: home, with: "~")
    line = line.replacingOccurrences(
      of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#, with: "TIME", options: .regularExpression)
    return line.replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression)
  }

  static func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
  }

  /// Terminal output as the lines a person reads: escape sequences and carriage returns removed,
  /// and a line redrawn by the editor (prompt and typed text again) kept once.
  static func withoutEscapes(_ text: String) -> String {
    var result = ""
    var scalars = text.unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
      guard scalar == "\u{1B}" else {
        result.unicodeScalars.append(scalar)
        continue
      }
      // CSI: ESC [ parameters, then one final letter.
      guard scalars.next() == "[" else { continue }
      while let next = scalars.next(), !(("A"..."Z").contains(next) || ("a"..."z").contains(next)) {}
    }
    result = result.replacingOccurrences(of: "\r\n", with: "\n")
    return result.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      // What a carriage return overwrote is gone from the screen.
      String(line.split(separator: "\r", omittingEmptySubsequences: false).last ?? "")
    }.joined(separator: "\n")
  }
}
