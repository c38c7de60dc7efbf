import HostKit

/// Reads a command's arguments against its `CommandSpec`: every option and its value checked by
/// the option's kind, every positional counted, every mistake a usage error naming the value.
enum ArgumentReader {
  /// The arguments of `command` (the words after it). `-h` or `--help` anywhere asks for help
  /// and nothing else is checked; a command with subcommands reads the one its first word names.
  static func read(_ arguments: [String], for command: CommandSpec) throws(HostError) -> ParsedArguments {
    var parsed = ParsedArguments(command: command)
    if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
      parsed.wantsHelp = true
      return parsed
    }
    if !command.subcommands.isEmpty { return try readSubcommand(arguments, of: command) }
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      if isOption(argument) {
        guard let option = command.option(named: argument) else { throw unknownOption(argument, for: command) }
        try parsed.read(option, from: &rest)
      } else {
        parsed.positionals.append(argument)
      }
    }
    try checkPositionals(parsed, of: command)
    return parsed
  }

  /// The options before the command word (`host --plugins DIR run ...`), consumed from `rest`.
  /// Stops at the first argument that is not an option, or is one of `before`'s: the options of
  /// what runs with no command word. An unknown option is suggested one of either.
  static func readLeadingOptions(
    _ rest: inout ArraySlice<String>, of global: CommandSpec, before next: CommandSpec
  ) throws(HostError) -> ParsedArguments {
    var parsed = ParsedArguments(command: global)
    while let argument = rest.first, isOption(argument),
      global.option(named: argument) != nil || next.option(named: argument) == nil
    {
      rest.removeFirst()
      guard let option = global.option(named: argument) else {
        var both = global
        both.options += next.options
        throw unknownOption(argument, for: both)
      }
      if option == .help {
        parsed.wantsHelp = true
        return parsed
      }
      try parsed.read(option, from: &rest)
    }
    return parsed
  }

  /// Whether `argument` is an option: `-x` or `--x`, not `-` alone (stdin, for some commands).
  static func isOption(_ argument: String) -> Bool { argument.hasPrefix("-") && argument != "-" }

  /// The usage error for an option `command` does not have, suggesting the nearest it has.
  static func unknownOption(_ argument: String, for command: CommandSpec) -> HostError {
    let names = command.allOptions.filter { !$0.isHidden }.map(\.name)
    let owner = command.name == HostCLI.programName ? "" : " for '\(command.name)'"
    return .usage(
      "unknown option '\(argument)'\(owner)",
      help: suggest(argument, names) ?? "its options: \(names.joined(separator: ", "))")
  }

  /// "did you mean 'X'?" for the candidate nearest `input`, when one is near enough.
  static func suggest(_ input: String, _ candidates: [String]) -> String? {
    Suggestion.closest(to: input, in: candidates).map { "did you mean '\($0)'?" }
  }

  private static func readSubcommand(_ arguments: [String], of command: CommandSpec) throws(HostError)
    -> ParsedArguments
  {
    guard let index = arguments.firstIndex(where: { !isOption($0) }) else {
      return try subcommandResult(command.subcommands[0], of: command, arguments)
    }
    let word = arguments[index]
    guard let subcommand = command.subcommand(named: word) else {
      let names = command.subcommands.map(\.name)
      throw .usage(
        "unknown command '\(word)' for '\(command.name)'",
        help: suggest(word, names) ?? "its commands: \(names.joined(separator: ", "))")
    }
    var rest = arguments
    rest.remove(at: index)
    return try subcommandResult(subcommand, of: command, rest)
  }

  private static func subcommandResult(
    _ subcommand: CommandSpec, of command: CommandSpec, _ arguments: [String]
  ) throws(HostError) -> ParsedArguments {
    var qualified = subcommand
    qualified.name = "\(command.name) \(subcommand.name)"
    var parsed = try read(arguments, for: qualified)
    parsed.subcommand = subcommand.name
    return parsed
  }

  private static func checkPositionals(_ parsed: ParsedArguments, of command: CommandSpec) throws(HostError) {
    let given = parsed.positionals
    let specs = command.positionals
    let help = "usage: \(HelpText.usageLine(command))"
    for (index, spec) in specs.enumerated() {
      guard let other = spec.orElse else { continue }
      let either = "\(spec.withArticle) or \(other.synopsis)"
      if index < given.count && parsed.has(other) {
        throw .usage("'\(command.name)' takes \(either), not both", help: help)
      }
      if index >= given.count && !parsed.has(other) {
        throw .usage("'\(command.name)' needs \(either)", help: help)
      }
    }
    let required = specs.filter { $0.isRequired && $0.orElse == nil }
    if given.count < required.count {
      let missing = required[given.count]
      let amount = missing.isRepeatable ? "at least one \(missing.noun)" : missing.withArticle
      throw .usage("'\(command.name)' needs \(amount)", help: help)
    }
    guard specs.last?.isRepeatable != true, given.count > specs.count else { return }
    guard let last = specs.last else {
      throw .usage("'\(command.name)' takes no arguments, got '\(given[0])'", help: help)
    }
    let extra = given[specs.count]
    throw .usage("'\(command.name)' takes one \(last.noun), got '\(given[specs.count - 1])' and '\(extra)'", help: help)
  }
}

/// What `ArgumentReader` read: the options' checked values and the positionals, in order.
struct ParsedArguments {
  /// The command read, its name qualified for a subcommand (`sessions rm`).
  let command: CommandSpec
  /// The subcommand named (or the default one), for a command that has them.
  var subcommand: String?
  var positionals: [String] = []
  /// `-h` or `--help` was given: print the command's help and do nothing else.
  var wantsHelp = false
  private var values: [String: [Value]] = [:]
  /// Each option's values as typed, for errors.
  private var given: [String: [String]] = [:]

  init(command: CommandSpec) { self.command = command }

  /// A value, checked by its option's kind.
  enum Value: Equatable {
    case present
    case text(String)
    case count(Int)
    case seconds(Double)
    case size(UInt64)
  }

  /// Whether `option` was given.
  func has(_ option: OptionSpec) -> Bool { values[option.name] != nil }

  /// Every text value of `option`, in order; a repeatable option's `--config a --config b`.
  func texts(_ option: OptionSpec) -> [String] {
    (values[option.name] ?? []).compactMap { if case .text(let text) = $0 { text } else { nil } }
  }

  /// The text (or choice) value of `option`, when it was given.
  func text(_ option: OptionSpec) -> String? { texts(option).last }

  /// The whole-number value of `option`, when it was given.
  func count(_ option: OptionSpec) -> Int? {
    values[option.name]?.last.flatMap { if case .count(let count) = $0 { count } else { nil } }
  }

  /// The seconds value of `option`, when it was given.
  func seconds(_ option: OptionSpec) -> Double? {
    values[option.name]?.last.flatMap { if case .seconds(let seconds) = $0 { seconds } else { nil } }
  }

  /// The size value of `option` in bytes, when it was given.
  func size(_ option: OptionSpec) -> UInt64? {
    values[option.name]?.last.flatMap { if case .size(let bytes) = $0 { bytes } else { nil } }
  }

  /// The seconds value of `option` as a duration, to the millisecond.
  func duration(_ option: OptionSpec) -> Duration? {
    seconds(option).map { .milliseconds(Int64($0 * 1000)) }
  }

  /// Reads `option`'s value, if it takes one, from the front of `rest`, and checks it.
  fileprivate mutating func read(_ option: OptionSpec, from rest: inout ArraySlice<String>) throws(HostError) {
    let value: Value
    if option.takesValue {
      let help = "give it as '\(option.synopsis)'; see '\(command.helpInvocation)'"
      guard let text = rest.first else {
        throw .usage("\(option.name) needs a value (\(option.valueName ?? "VALUE"))", help: help)
      }
      if command.option(named: text) != nil {
        throw .usage(
          "\(option.name) needs a value (\(option.valueName ?? "VALUE")), got the option '\(text)'", help: help)
      }
      rest.removeFirst()
      given[option.name, default: []].append(text)
      value = try Self.check(text, for: option, in: command)
    } else {
      value = .present
    }
    if values[option.name] != nil, option.takesValue, !option.isRepeatable, let earlier = given[option.name]?.first {
      throw .usage(
        "\(option.name) is given twice, as '\(earlier)' and '\(given[option.name]?.last ?? "")'",
        help: "give \(option.name) once")
    }
    values[option.name, default: []].append(value)
  }

  /// `text` as `option`'s kind reads it; a usage error quoting it when it is not well formed.
  private static func check(_ text: String, for option: OptionSpec, in command: CommandSpec) throws(HostError) -> Value
  {
    switch option.kind {
    case .flag:
      return .present
    case .text:
      return .text(text)
    case .choice(let words, let noun):
      // Any case: `--lang C` is `--lang c`.
      guard let word = words.first(where: { $0.lowercased() == text.lowercased() }) else {
        throw .usage(
          "\(option.name) '\(text)' is not \(noun) 'host \(command.name)' knows",
          help: ArgumentReader.suggest(text, words)
            ?? "use " + words.map { "\(option.name) \($0)" }.joined(separator: " or "))
      }
      return .text(word)
    case .count(let minimum):
      guard let count = Int(text), count >= minimum else {
        let bound = minimum == 1 ? "above 0" : "\(minimum) or more"
        throw .usage("\(option.name) '\(text)' must be a whole number \(bound)")
      }
      return .count(count)
    case .seconds(let minimum, let allowsMinimum, let maximum):
      let bound = allowsMinimum ? ", \(whole(minimum)) or more" : " above \(whole(minimum))"
      let most = maximum ?? CommandTable.longestWait
      let limit = " (at most \(whole(most)))"
      guard let seconds = Double(text), seconds.isFinite,
        allowsMinimum ? seconds >= minimum : seconds > minimum,
        seconds <= most
      else {
        throw .usage("\(option.name) '\(text)' must be a number of seconds\(bound)\(limit)")
      }
      return .seconds(seconds)
    case .size(let minimum):
      guard let bytes = MemorySize.parse(text), bytes >= minimum else {
        throw .usage(
          "\(option.name) '\(text)' must be a size of \(MemorySize.text(minimum)) or more",
          help: "give a number with a unit, like 512M or 2G")
      }
      return .size(bytes)
    }
  }

  private static func whole(_ number: Double) -> String {
    number == number.rounded() ? String(Int(number)) : String(number)
  }
}
