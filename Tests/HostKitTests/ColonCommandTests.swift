import HostKit
import Testing

@testable import host

/// The table of `:` commands against what is derived from it (lookup, "did you mean", `:help`,
/// `run --help`, completion) and against the README, so that none of them can drift from it.
@Suite("':' command table")
struct ColonCommandTests {
  /// The command lines (`  :NAME ...`) of the README's "while running:" section.
  static func readmeCommandLines() throws -> [String] {
    let lines = try ReadmeTests.readme().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let start = try #require(lines.firstIndex(of: "while running:"))
    return lines[(start + 1)...].prefix { !$0.isEmpty }.filter { $0.hasPrefix("  :") }
  }

  @Test func theReadmeShowsTheCommandsAsTheHostPrintsThem() throws {
    #expect(try Self.readmeCommandLines() == ColonCommand.helpLines)
  }

  @Test func runHelpListsEveryCommand() {
    let section =
      "commands while running (a unique prefix will do: ':o levels'):\n"
      + ColonCommand.helpLines.joined(separator: "\n") + "\n\n"
    #expect(HelpText.command(CommandTable.run).contains(section))
  }

  @Test func colonHelpEndsWithEveryCommand() {
    let manifest = Manifest(
      id: "counter", name: "Counter", version: "1.0.0", description: "counts",
      actions: [ActionSpec("increment", help: "add one")])
    let help = ColonCommand.help(manifest)
    #expect(help.hasPrefix("Counter 1.0.0 (counter): counts\n\nactions:\n  increment  add one\n"))
    #expect(help.hasSuffix("\n\ncommands:\n" + ColonCommand.helpLines.joined(separator: "\n")))
  }

  @Test func everyHelpLineNamesItsCommandAndFitsTheHelpWidth() {
    #expect(ColonCommand.helpLines.count == ColonCommand.all.count)
    for (line, command) in zip(ColonCommand.helpLines, ColonCommand.all) {
      #expect(line.hasPrefix("  \(command.usage) "), "\(line)")
      #expect(line.hasSuffix("  \(command.help)"), "\(line)")
      #expect(line.count <= HelpText.width, "\(line)")
    }
  }

  @Test func namesAndAliasesAreAllDifferent() {
    let words = ColonCommand.all.flatMap { [$0.name] + $0.aliases }
    #expect(Set(words).count == words.count, "\(words)")
  }

  struct Lookup: CustomTestStringConvertible, Sendable {
    let id: String
    let typed: String
    /// The command's name, or nil when `typed` names none.
    let command: String?
    var testDescription: String { id }
  }

  static let lookups: [Lookup] = [
    Lookup(id: "name", typed: "history", command: "history"),
    Lookup(id: "alias", typed: "h", command: "help"),
    Lookup(id: "alias-symbol", typed: "?", command: "help"),
    Lookup(id: "alias-exit", typed: "exit", command: "quit"),
    Lookup(id: "unique-prefix", typed: "o", command: "open"),
    Lookup(id: "longer-prefix", typed: "fo", command: "focus"),
    Lookup(id: "name-that-prefixes-another", typed: "save", command: "save"),
    Lookup(id: "bang-name", typed: "save!", command: "save!"),
    Lookup(id: "ambiguous-prefix", typed: "re", command: nil),
    Lookup(id: "empty", typed: "", command: nil),
    Lookup(id: "unknown", typed: "opne", command: nil),
  ]

  @Test("a name, an alias or a unique prefix finds its command", arguments: lookups)
  func lookup(_ lookup: Lookup) {
    #expect(ColonCommand.named(lookup.typed)?.name == lookup.command)
  }

  @Test func everyUniquePrefixOfANameFindsIt() {
    let names = ColonCommand.all.map(\.name)
    for name in names {
      for length in 1...name.count {
        let prefix = String(name.prefix(length))
        guard names.filter({ $0.hasPrefix(prefix) }).count == 1 else { continue }
        #expect(ColonCommand.named(prefix)?.name == name, "':\(prefix)'")
      }
    }
  }

  @Test func anUnknownCommandSuggestsTheClosestAndListsThemAll() {
    let error = ColonCommand.unknown("opne")
    #expect(error.message == "unknown command ':opne'")
    let list = ColonCommand.all.map { ":" + $0.name }.joined(separator: ", ")
    #expect(error.help == "did you mean ':open'? commands: \(list)")
    #expect(ColonCommand.unknown("zzzzzz").help == "commands: \(list)")
  }

  @Test func onlyCommandsThatTakeAFeatureCompleteFeatureIDs() {
    let features = ["counter", "kittens", "levels"]
    let completion = Completion(actions: [], commands: ColonCommand.all, features: features)
    #expect(ColonCommand.all.contains { $0.argument == .featureID })
    for command in ColonCommand.all {
      let expected = command.argument == .featureID ? features : []
      #expect(completion.candidates(before: ":\(command.name) ", word: "") == expected, "\(command.usage)")
    }
    #expect(completion.candidates(before: "", word: ":") == ColonCommand.all.map { ":" + $0.name }.sorted())
  }
}
