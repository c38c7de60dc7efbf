import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every `$ ./host ...` example of the README runs here and must print what the README shows, so
/// the README and the host cannot drift apart. `...` in an example stands for lines left out.
/// Every ```sh block runs too, unless a `<!-- not run: REASON -->` line just above it says why.
@Suite(.serialized, ReadmeHome()) struct ReadmeTests {
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
  /// ones made (the session `demo`). Made before the suite runs and removed after it, whatever
  /// happened (`ReadmeHome`).
  static let home = homeFolder(for: getpid())

  /// Where the README home of the test process `pid` is.
  static func homeFolder(for pid: pid_t) -> String { NSTemporaryDirectory() + "featurehost-readme-\(pid)" }

  /// Runs `body` with a fresh `folder` that is removed when `body` returns or throws. First removes
  /// the README homes of test processes that are gone (killed before they could remove theirs).
  static func withHome<T>(_ folder: String, _ body: () async throws -> T) async throws -> T {
    let manager = FileManager.default
    let temporary = NSTemporaryDirectory()
    for name in (try? manager.contentsOfDirectory(atPath: temporary)) ?? [] {
      guard name.hasPrefix("featurehost-readme-"), let pid = pid_t(name.dropFirst("featurehost-readme-".count)),
        kill(pid, 0) != 0 && errno == ESRCH
      else { continue }
      try? manager.removeItem(atPath: temporary + name)
    }
    try? manager.removeItem(atPath: folder)
    try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? manager.removeItem(atPath: folder) }
    return try await body()
  }

  @Test func theHomeIsRemovedWhenTheBodyThrowsAndWhenItReturns() async throws {
    struct Failed: Error {}
    let folder = NSTemporaryDirectory() + "featurehost-readme-home-test-\(UUID().uuidString)"
    await #expect(throws: Failed.self) {
      try await Self.withHome(folder) {
        try "made".write(toFile: folder + "/file", atomically: true, encoding: .utf8)
        throw Failed()
      }
    }
    #expect(!FileManager.default.fileExists(atPath: folder))
    let existed = try await Self.withHome(folder) { FileManager.default.fileExists(atPath: folder) }
    #expect(existed)
    #expect(!FileManager.default.fileExists(atPath: folder))
  }

  @Test func theHomeOfAGoneTestProcessIsRemoved() async throws {
    // given the home of a process that has exited
    var child = ChildProcess("/bin/true", arguments: [])
    child.standardOutput = .discard
    let started = try child.start()
    let pid = started.pid
    _ = started.finish(until: .now + .seconds(30))
    let stale = Self.homeFolder(for: pid)
    try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
    // when another home is made
    let folder = NSTemporaryDirectory() + "featurehost-readme-home-test-\(UUID().uuidString)"
    try await Self.withHome(folder) {}
    // then the stale one is gone, and this suite's own is still there
    #expect(!FileManager.default.fileExists(atPath: stale))
    #expect(FileManager.default.fileExists(atPath: Self.home))
  }

  static var environment: [String: String] {
    ["HOME": home, "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache"]
  }

  @Test(arguments: allExamples.filter { !$0.isTerminal })
  func aPipeExamplePrintsWhatTheReadmeShows(_ example: Example) async throws {
    let (arguments, input) = try Self.parse(example.command)
    let result = try await HostProcess.run(arguments, input: input, environment: Self.environment)
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

  @Test func theTranscriptExamplePassesHostCheck() async throws {
    let transcripts = Self.transcripts(in: try Self.readme())
    #expect(transcripts.count == 1)
    let scratch = try JournalScratch()
    // Beside the catalog its `$TESTDIR` names, as in Tests/Transcripts.
    try FileManager.default.copyItem(
      atPath: Self.root + "/Tests/Transcripts/kittens-catalog.json", toPath: scratch.file("kittens-catalog.json"))
    for (index, transcript) in transcripts.enumerated() {
      try scratch.write("readme-\(index).transcript", transcript)
      let result = try await HostProcess.run(["check", scratch.file("readme-\(index).transcript")])
      #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
  }

  // MARK: - Commands in the text

  /// The `./host ...` commands quoted in the README's prose that a reader can copy as they are:
  /// no placeholder in capitals (`FILE`, `ID`) and nothing that needs a folder set up first
  /// (`/tmp/plugins`, which the reload tests build).
  static func inlineCommands(in readme: String) -> [String] {
    var spans: [String] = []
    var fenced = false
    for line in readme.split(separator: "\n") {
      if line.hasPrefix("```") || line.hasPrefix("  ```") {
        fenced.toggle()
        continue
      }
      guard !fenced else { continue }
      // Between the backticks of a line: the odd pieces.
      spans += line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
        .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
    return spans.filter { span in
      guard span.hasPrefix("./host "), !span.contains("/tmp/") else { return false }
      return !span.split(separator: " ").contains { word in
        word.count > 1 && word.allSatisfy { $0.isUppercase || $0 == "|" || $0 == "." }
      }
    }
  }

  @Test func theCommandsQuotedInTheTextRunAndSucceed() async throws {
    let commands = Self.inlineCommands(in: try Self.readme())
    #expect(commands.count >= 2)
    for command in commands {
      let (arguments, _) = try Self.parse(command)
      let result = try await HostProcess.run(arguments, environment: Self.environment)
      #expect(result.status == 0, "\(command): \(result.stdout)\(result.stderr)")
    }
  }

  @Test func onlyCopyableQuotedCommandsAreRun() {
    let text = "run `./host run counter`, `./host run --flow FILE`, `./host --plugins /tmp/p run x`, `host list`"
    #expect(Self.inlineCommands(in: text) == ["./host run counter"])
  }

  // MARK: - The ```sh blocks

  /// One ```sh block: its commands, and why it is not run when a `<!-- not run: REASON -->` line
  /// stands just above it.
  struct ShellBlock: CustomTestStringConvertible, Sendable {
    let line: Int
    let script: String
    let notRun: String?
    var testDescription: String { "README line \(line): \(script.prefix { $0 != "\n" })" }
  }

  static func shellBlocks(in readme: String) -> [ShellBlock] {
    var blocks: [ShellBlock] = []
    let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var index = 0
    while index < lines.count {
      defer { index += 1 }
      guard lines[index] == "```sh" else { continue }
      let start = index
      var body: [String] = []
      index += 1
      while index < lines.count && lines[index] != "```" {
        body.append(lines[index])
        index += 1
      }
      let above = start > 0 ? lines[start - 1] : ""
      var reason: String?
      if above.hasPrefix("<!-- not run: ") && above.hasSuffix(" -->") {
        reason = String(above.dropFirst("<!-- not run: ".count).dropLast(" -->".count))
      }
      blocks.append(ShellBlock(line: start + 1, script: body.joined(separator: "\n") + "\n", notRun: reason))
    }
    return blocks
  }

  static let allShellBlocks: [ShellBlock] = (try? shellBlocks(in: readme())) ?? []

  @Test func everyShellBlockRunsOrSaysWhyNot() {
    #expect(Self.allShellBlocks.count >= 3)
    #expect(Self.allShellBlocks.filter { $0.notRun == nil }.count >= 2)
    for block in Self.allShellBlocks {
      if let reason = block.notRun { #expect(reason.split(separator: " ").count >= 4, "\(block.testDescription)") }
    }
  }

  @Test func aBlockMarkedNotRunIsToldApart() {
    let readme = "```sh\nrun me\n```\n<!-- not run: it installs things on the machine -->\n```sh\nnot me\n```\n"
    let blocks = Self.shellBlocks(in: readme)
    #expect(blocks.map(\.script) == ["run me\n", "not me\n"])
    #expect(blocks.map(\.notRun) == [nil, "it installs things on the machine"])
  }

  /// Runs a block as a person would, with `sh -e` from a folder that stands for the checkout: its
  /// `host` runs the built host (the launcher script would build the release one), and its
  /// `Sources`, `Plugins`, `Tests` and `docs` are the checkout's. `~` is the README home, where
  /// `~/FeatureHost` is that folder too. A block that builds a plugin package takes minutes.
  @Test(.timeLimit(.minutes(30)), arguments: allShellBlocks.filter { $0.notRun == nil })
  func aShellBlockRunsAsWritten(_ block: ShellBlock) async throws {
    let checkout = try Self.checkoutStandIn()
    // Temporary files (SwiftPM's locks, named after the package's path) go in the home too.
    let temporary = Self.home + "/tmp"
    try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    var process = ChildProcess(
      "/usr/bin/env", arguments: ["nice", "-n", "19", "sh", "-e", "-x", "-c", block.script],
      environment: HostProcess.environment(adding: Self.environment.merging(["TMPDIR": temporary]) { _, new in new }))
    process.workingDirectory = checkout
    process.errorIntoOutput = true
    // On a thread of its own: a build of minutes must not hold one of the test pool's threads.
    let started = process
    let result = try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread { continuation.resume(with: Result { try started.run(timeout: .seconds(1_800)) }) }
    }
    #expect(result.termination == .exited(0), "\(block.testDescription):\n\(result.outputText)")
    if block.script.contains("host new word-count") { try Self.checkNewPackage(in: Self.home + "/features/word-count") }
    // and nothing named after the home is left beside it (the home itself goes after the suite)
    let home = URL(fileURLWithPath: Self.home).lastPathComponent
    let left = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
      $0.contains(home + "_")
    }
    #expect(left.isEmpty, "\(left)")
  }

  /// The folder the shell blocks run from, made once (see `aShellBlockRunsAsWritten`).
  static func checkoutStandIn() throws -> String {
    let folder = home + "/FeatureHost"
    let manager = FileManager.default
    guard !manager.fileExists(atPath: folder) else { return folder }
    try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for name in ["Sources", "Plugins", "Tests", "docs"] {
      try manager.createSymbolicLink(atPath: "\(folder)/\(name)", withDestinationPath: "\(root)/\(name)")
    }
    let options = sanitizerValidateOptions.joined(separator: " ")
    let validating = options.isEmpty ? "" : "[ \"$1\" = validate ] && set -- \"$@\" \(options)\n"
    try "#!/bin/sh\n\(validating)exec '\(HostProcess.executable)' \"$@\"\n".write(
      toFile: folder + "/host", atomically: true, encoding: .utf8)
    try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/host")
    return folder
  }

  /// What the README's `host new` block made: a package that names the checkout by a relative
  /// path and by its package name, never by where it is or what its folder is called.
  static func checkNewPackage(in folder: String) throws {
    let manifest = try String(contentsOfFile: folder + "/Package.swift", encoding: .utf8)
    #expect(!manifest.contains("\"\(root)"))
    #expect(manifest.contains(#"?? "../"#))
    #expect(manifest.contains(#".package(name: "FeatureHost", path: featureHost)"#))
    let library = try PluginLoader.load(folder + "/.build/debug/libWordCount.so")
    #expect(library.manifest.id == "word-count")
    // the catalogue derived from the file's Action enum
    #expect(library.manifest.actions.map(\.type) == ["add", "reset"])
    #expect(library.manifest.action(named: "add")?.help == "Add an amount to the total.")
    #expect(library.manifest.action(named: "add")?.arguments.map(\.name) == ["amount"])
    // and the feature is one source file, the one the README shows whole
    let sources = try FileManager.default.subpathsOfDirectory(atPath: folder + "/Sources").filter {
      $0.hasSuffix(".swift")
    }
    #expect(sources == ["WordCountFeature/WordCountFeature.swift"])
    let file = try String(contentsOfFile: folder + "/Sources/WordCountFeature/WordCountFeature.swift", encoding: .utf8)
    #expect(
      try readme().contains("```swift\n" + file + "```\n"),
      "the README's word-count feature is not the one host new writes")
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
    let validating = arguments.first == "validate" ? sanitizerValidateOptions : []
    return (Array(arguments) + validating, input)
  }

  /// Under a sanitizer `validate` gets `--timeout 120`: its 10 s per check is a release build's
  /// allowance, and a sanitized debug host takes longer over the bad-actions check.
  static let sanitizerValidateOptions = FixturePlugin.sanitizer == nil ? [] : ["--timeout", "120"]

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

/// Makes `ReadmeTests.home` before the suite's tests and removes it after the last one, whether
/// they passed, failed or threw.
struct ReadmeHome: SuiteTrait, TestScoping {
  var isRecursive: Bool { false }

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await ReadmeTests.withHome(ReadmeTests.home) { try await function() }
  }
}
