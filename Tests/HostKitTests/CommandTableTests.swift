import HostKit
import Testing

@testable import host

/// The command table against what is derived from it: for every command and option, parsing,
/// the errors for a missing value or a near-miss name, and help all agree with the table.
@Suite("host command table")
struct CommandTableTests {
  /// One option of one command, as the table declares it.
  struct Entry: CustomTestStringConvertible, Sendable {
    let command: CommandSpec
    let option: OptionSpec
    /// The help that should list the option.
    let help: String
    var testDescription: String { "\(command.name) \(option.name)" }

    /// The command's required positionals, as examples; the one `option` stands in for left out.
    var positionals: [String] {
      command.positionals.filter { $0.isRequired && $0.orElse != option }.map(\.example)
    }

    /// `option` and, when it takes one, its example value.
    var use: [String] { [option.name] + (option.example.map { [$0] } ?? []) }
  }

  /// Every command (subcommands included), the main flow and the options before a command.
  static let commands: [CommandSpec] = CommandTable.commands.flatMap { command in
    [command]
      + command.subcommands.map { subcommand in
        var qualified = subcommand
        qualified.name = "\(command.name) \(subcommand.name)"
        return qualified
      }
  }

  static let entries: [Entry] =
    commands.flatMap { command in
      command.allOptions.map { Entry(command: command, option: $0, help: HelpText.command(command)) }
    }
    + CommandTable.mainFlow.allOptions.map {
      Entry(command: CommandTable.mainFlow, option: $0, help: HelpText.command(CommandTable.run))
    }
    + CommandTable.global.allOptions.map {
      Entry(command: CommandTable.global, option: $0, help: HelpText.main())
    }

  /// The usage error `arguments` make, or nil when they are read.
  static func error(reading arguments: [String], for command: CommandSpec) -> HostError? {
    do {
      _ = try ArgumentReader.read(arguments, for: command)
      return nil
    } catch {
      return error
    }
  }

  @Test("a well-formed use of each option is read", arguments: entries)
  func wellFormedUseIsRead(_ entry: Entry) throws {
    let parsed = try ArgumentReader.read(entry.positionals + entry.use, for: entry.command)
    if entry.option == .help {
      #expect(parsed.wantsHelp)
    } else {
      #expect(parsed.has(entry.option))
      #expect(parsed.positionals == entry.positionals)
    }
  }

  @Test("an option given without its value is refused, naming it", arguments: entries.filter(\.option.takesValue))
  func missingValueIsRefused(_ entry: Entry) throws {
    let error = try #require(Self.error(reading: entry.positionals + [entry.option.name], for: entry.command))
    #expect(error.kind == .usage)
    #expect(error.message == "\(entry.option.name) needs a value (\(entry.option.valueName ?? "VALUE"))")
    #expect(error.help?.contains(entry.option.synopsis) == true)
  }

  @Test("a misspelt option is refused and the real one suggested", arguments: entries.filter { !$0.option.isHidden })
  func nearMissIsSuggested(_ entry: Entry) throws {
    // One letter dropped: `--sesion` for `--session`.
    var typo = entry.option.name
    typo.remove(at: typo.index(typo.startIndex, offsetBy: 3))
    let error = try #require(Self.error(reading: entry.positionals + [typo], for: entry.command))
    #expect(error.kind == .usage)
    #expect(error.message.hasPrefix("unknown option '\(typo)'"))
    #expect(error.help == "did you mean '\(entry.option.name)'?")
  }

  @Test("help lists each option, and no hidden one", arguments: entries)
  func helpListsTheOption(_ entry: Entry) {
    let listed = entry.help.contains("\n  \(entry.option.synopsis)  ")
    #expect(listed == !entry.option.isHidden, "\(entry.help)")
  }

  @Test("a misspelt value of a checked kind is refused, quoting it", arguments: entries.filter(\.option.takesValue))
  func badValueIsRefused(_ entry: Entry) throws {
    guard entry.option.kind != .text else { return }
    let error = try #require(
      Self.error(reading: entry.positionals + [entry.option.name, "nonsense"], for: entry.command))
    #expect(error.kind == .usage)
    #expect(error.message.hasPrefix("\(entry.option.name) 'nonsense' "))
  }

  @Test("the host's help lists every command with its arguments", arguments: CommandTable.commands.map(\.name))
  func mainHelpListsTheCommand(_ name: String) throws {
    let command = try #require(CommandTable.command(named: name))
    let help = HelpText.main()
    #expect(help.contains("\n  \("\(command.name) \(command.argumentSynopsis)".trimmingSpaces)  "))
    #expect(HelpText.command(command).hasPrefix("usage: host "))
  }

  @Test("a command given too few or too many arguments is refused", arguments: commands.filter(\.subcommands.isEmpty))
  func positionalsAreCounted(_ command: CommandSpec) throws {
    let required = command.positionals.filter { $0.isRequired }
    if let first = required.first {
      let missing = try #require(Self.error(reading: [], for: command))
      #expect(missing.message.hasPrefix("'\(command.name)' needs "))
      #expect(missing.message.contains(first.noun))
    }
    if command.positionals.last?.isRepeatable != true {
      let extra = command.positionals.map(\.example) + ["extra"]
      let error = try #require(Self.error(reading: extra, for: command))
      #expect(error.message.hasPrefix("'\(command.name)' takes "))
      #expect(error.message.hasSuffix("'extra'"))
    }
  }

  @Test func aMisspeltSubcommandIsRefusedAndTheRealOneSuggested() throws {
    let error = try #require(Self.error(reading: ["rmm", "demo"], for: CommandTable.sessions))
    #expect(error == .usage("unknown command 'rmm' for 'sessions'", help: "did you mean 'rm'?"))
  }

  @Test func noSubcommandIsTheFirst() throws {
    let parsed = try ArgumentReader.read([], for: CommandTable.sessions)
    #expect(parsed.subcommand == CommandTable.sessions.subcommands.first?.name)
  }
}

extension CommandSpec: CustomTestStringConvertible {
  public var testDescription: String { name }
}

extension String {
  fileprivate var trimmingSpaces: String {
    var text = self
    while text.hasSuffix(" ") { text.removeLast() }
    return text
  }
}
