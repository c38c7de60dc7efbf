import HostKit

/// One `:` command of `host run`: its names, its argument, its line of help and what it does.
///
/// `ColonCommand.all` is the one table of them: dispatch and "did you mean" (`named`, `unknown`),
/// `:help` and `run --help` (`helpLines`) and Tab completion (`Completion`) all read it, so
/// what the host accepts and what it says it accepts cannot drift apart.
struct ColonCommand: Sendable {
  /// What a command takes after its name, as its usage names it.
  enum Argument: String, Sendable {
    case seq = "SEQ"
    case file = "FILE"
    /// A feature id, which Tab completes.
    case featureID = "ID"
  }

  /// What a command is run with.
  struct Call {
    let runtime: SessionRuntime
    /// The focused feature, the one the command is for.
    let feature: PresentedFeature
    /// The words after the command's name.
    let argument: String
    let console: Console
    let plugins: [PluginRecord]
  }

  enum Next { case goOn, quit }

  let name: String
  /// Other names accepted in full (`:q`), not shown in help.
  var aliases: [String] = []
  var argument: Argument?
  let help: String
  let run: @Sendable (Call) throws(HostError) -> Next

  /// `:goto SEQ`.
  var usage: String { ":\(name)" + (argument.map { " \($0.rawValue)" } ?? "") }

  /// The command `name` names in `commands`: its name, an alias, or a prefix of one name only
  /// (`:o` is `:open`).
  static func named(_ name: String, in commands: [ColonCommand] = all) -> ColonCommand? {
    if let exact = commands.first(where: { $0.name == name || $0.aliases.contains(name) }) { return exact }
    let prefixed = commands.filter { !name.isEmpty && $0.name.hasPrefix(name) }
    return prefixed.count == 1 ? prefixed[0] : nil
  }

  /// The command a typed line names (`:o levels` names `:open`); nil for an action or an unknown
  /// command.
  static func typed(in line: String) -> ColonCommand? {
    guard line.hasPrefix(":") else { return nil }
    return named(String(line.dropFirst().prefix { $0 != " " }))
  }

  /// The error for `:name` that names no command, with the closest one and the list.
  static func unknown(_ name: String) -> HostError {
    let names = all.map(\.name)
    let hint = Suggestion.closest(to: name, in: names).map { "did you mean ':\($0)'? " } ?? ""
    return HostError(
      "unknown command ':\(Excerpt.of(name))'",
      help: "\(hint)commands: \(names.map { ":" + $0 }.joined(separator: ", "))")
  }

  /// One line per command, usage and help in two columns: the list `:help` and `run --help` end
  /// with and the README shows.
  static let helpLines: [String] = {
    let width = all.map(\.usage.count).max() ?? 0
    return all.map { "  \($0.usage.padding(toLength: width))  \($0.help)" }
  }()
}
