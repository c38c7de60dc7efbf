import HostKit

/// One command of the command line as the table declares it: its words, arguments and options.
///
/// Parsing (`ArgumentReader`), help (`HelpText`) and "did you mean" suggestions are all derived
/// from these values, so what the host accepts and what its help says cannot drift apart.
struct CommandSpec: Sendable {
  /// The word that selects the command: `run`, or `rm` for a subcommand.
  var name: String
  /// Other words for the same command, accepted but not shown.
  var aliases: [String] = []
  /// One line for the command list of `host --help`.
  let summary: String
  /// Whether the command reads the plugin folders, so its usage shows `[--plugins DIR]...`.
  var usesPluginFolders = false
  /// Usage lines beyond the derived one, each after `host `.
  var moreUsage: [String] = []
  /// The paragraphs between the usage lines and the options, already wrapped.
  var about = ""
  var positionals: [PositionalSpec] = []
  /// The options, without `--help`: every command has that one (see `allOptions`).
  var options: [OptionSpec] = []
  /// Commands under this one (`sessions rm`); the first is the default when none is named.
  var subcommands: [CommandSpec] = []
  /// Sections after the options (`checks:`, `commands while running:`), already wrapped.
  var epilogue = ""

  /// The options it accepts: its own, then `-h, --help`.
  var allOptions: [OptionSpec] { options + [.help] }

  /// The option called `name` (or by its short name), hidden ones included.
  func option(named name: String) -> OptionSpec? {
    allOptions.first { $0.name == name || $0.short == name }
  }

  /// The subcommand called `name` or one of its aliases.
  func subcommand(named name: String) -> CommandSpec? {
    subcommands.first { $0.name == name || $0.aliases.contains(name) }
  }

  /// The command line that prints its help: `host run --help`, or `host --help` for the host's.
  var helpInvocation: String { name == HostCLI.programName ? "host --help" : "host \(name) --help" }

  /// Whether `word` selects this command.
  func isCalled(_ word: String) -> Bool { name == word || aliases.contains(word) }

  /// Its arguments as usage shows them: `ID`, `[COMMAND]`, `FILE|DIR...`, `[list|rm NAME]`.
  var argumentSynopsis: String {
    if !subcommands.isEmpty {
      return "["
        + subcommands.map { ([$0.name] + $0.positionals.map(\.synopsis)).joined(separator: " ") }
        .joined(separator: "|") + "]"
    }
    return positionals.map(\.synopsis).joined(separator: " ")
  }
}

/// A value a command takes by position, not after an option.
struct PositionalSpec: Sendable {
  /// How usage shows it: `ID`, `PLUGIN.so`.
  let name: String
  /// What it is, for errors: `'run' needs a feature id`.
  let noun: String
  var isRequired = true
  var isRepeatable = false
  /// The option that stands in for it: given, the positional must not be (`run ID` or `--flow`).
  var orElse: OptionSpec? = nil
  /// A well-formed value, for the table's tests.
  let example: String

  var synopsis: String {
    let repeated = isRepeatable ? "\(name)..." : name
    return isRequired ? repeated : "[\(repeated)]"
  }

  /// The noun with its article: `a feature id`.
  var withArticle: String {
    let vowel = noun.first.map { "aeiou".contains($0) } ?? false
    return vowel ? "an \(noun)" : "a \(noun)"
  }
}

/// One option of a command: its name, the value it takes and how that value is checked.
struct OptionSpec: Sendable, Equatable {
  /// What the option takes, and what makes its value well formed.
  enum Kind: Sendable, Equatable {
    /// No value: present or not.
    case flag
    /// Any text; the command gives it meaning.
    case text
    /// One of a few words; `noun` names what they are (`language`).
    case choice([String], noun: String)
    /// A whole number, `minimum` or more.
    case count(minimum: Int)
    /// A number of seconds: above `minimum`, or from it when `allowsMinimum`; at most `maximum`.
    case seconds(minimum: Double, allowsMinimum: Bool, maximum: Double?)
    /// A size in bytes (`512M`, `1G`), `minimum` or more.
    case size(minimum: UInt64)
  }

  /// `--session`.
  let name: String
  /// `-h`, when it has one.
  var short: String? = nil
  let kind: Kind
  /// How help shows its value: `NAME`; nil for a flag.
  var valueName: String? = nil
  /// One sentence or so; help wraps it.
  let help: String
  /// Whether it may be given more than once (every value is kept).
  var isRepeatable = false
  /// Accepted but left out of help and suggestions: the validator's child mode.
  var isHidden = false
  /// A well-formed value, for the table's tests; the kind gives one when nil.
  var exampleValue: String? = nil

  var takesValue: Bool { kind != .flag }

  /// How help and usage show it: `--session NAME`, `-h, --help`.
  var synopsis: String {
    let names = [short, name].compactMap { $0 }.joined(separator: ", ")
    guard let valueName else { return names }
    return "\(names) \(valueName)"
  }

  /// A value this option accepts.
  var example: String? {
    if let exampleValue { return exampleValue }
    switch kind {
    case .flag: return nil
    case .text: return "x"
    case .choice(let words, _): return words.first
    case .count(let minimum): return "\(minimum)"
    case .seconds(let minimum, let allowsMinimum, _): return allowsMinimum ? "\(minimum)" : "\(minimum + 1)"
    case .size: return "1G"
    }
  }

  static let help = OptionSpec(name: "--help", short: "-h", kind: .flag, help: "show this help")
}

extension OptionSpec {
  /// The option that sets `setting`: its name, bounds and help as the setting declares them.
  init<Value>(_ setting: RunSetting<Value>) {
    let kind: Kind =
      switch setting.bounds {
      case .count(let minimum): .count(minimum: minimum)
      case .seconds(let minimum, let allowsMinimum, let maximum):
        .seconds(minimum: minimum, allowsMinimum: allowsMinimum, maximum: maximum)
      case .size(let minimum): .size(minimum: minimum)
      }
    self.init(name: setting.option, kind: kind, valueName: setting.valueName, help: setting.help)
  }
}
