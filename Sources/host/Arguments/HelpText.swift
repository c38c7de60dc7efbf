/// The help the host prints, written from the command table: `host --help`, `host help CMD` and
/// `host CMD --help` all come from here.
enum HelpText {
  /// The width help wraps option descriptions to.
  static let width = 100

  /// The short usage line of `command`, for usage errors: `host validate PLUGIN.so [options]`.
  static func usageLine(_ command: CommandSpec, pluginFolders: Bool = false) -> String {
    let prefix = pluginFolders && command.usesPluginFolders ? "host [--plugins DIR]... " : "host "
    let words = [command.name, command.argumentSynopsis, command.options.contains { !$0.isHidden } ? "[options]" : ""]
    return prefix + words.filter { !$0.isEmpty }.joined(separator: " ")
  }

  /// The whole help of one command.
  static func command(_ command: CommandSpec) -> String {
    var lines: [String]
    if command.subcommands.isEmpty {
      lines = [usageLine(command, pluginFolders: true)] + command.moreUsage.map { "host \($0)" }
    } else {
      lines = command.subcommands.enumerated().map { index, subcommand in
        var qualified = subcommand
        qualified.name = "\(command.name) \(subcommand.name)"
        qualified.usesPluginFolders = command.usesPluginFolders
        // The default subcommand may be left out.
        if index == 0 && subcommand.positionals.isEmpty { qualified.name = "\(command.name) [\(subcommand.name)]" }
        return usageLine(qualified, pluginFolders: true)
      }
    }
    var text = "usage: " + lines.joined(separator: "\n       ")
    if !command.about.isEmpty { text += "\n\n" + command.about }
    text += "\n\noptions:\n" + optionList(command.allOptions)
    if !command.epilogue.isEmpty { text += "\n\n" + command.epilogue }
    return text
  }

  /// `host --help`: what the host does, every command and the options before the command.
  static func main() -> String {
    let commands = CommandTable.commands.map { ("\($0.name) \($0.argumentSynopsis)", $0.summary) }
    return """
      usage: host [--plugins DIR]... [<command>] [options]

      \(CommandTable.global.about)

      commands:
      \(columns(commands))

      options:
      \(optionList(CommandTable.global.allOptions))

      exit codes: 0 ok, 1 failure, 64 usage error
      """
  }

  /// Each visible option and its help, in two columns.
  static func optionList(_ options: [OptionSpec]) -> String {
    columns(options.filter { !$0.isHidden }.map { ($0.synopsis, $0.help) })
  }

  /// Rows of a term and its description, the descriptions aligned and wrapped to `width`.
  private static func columns(_ rows: [(term: String, description: String)]) -> String {
    let termWidth = min(28, rows.map(\.term.count).max() ?? 0)
    let indent = String(repeating: " ", count: 2 + termWidth + 2)
    return rows.map { term, description in
      let wrapped = wrap(description, width: width - indent.count)
      let first = "  " + term.padding(toLength: termWidth) + "  "
      // A term too long for its column puts its description on the next line.
      let head =
        term.count > termWidth ? ["  " + term, indent + (wrapped.first ?? "")] : [first + (wrapped.first ?? "")]
      return (head + wrapped.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }.joined(separator: "\n")
  }

  /// `text` broken into lines of at most `width` characters, between words.
  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += line.isEmpty ? String(word) : " \(word)"
    }
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    return lines
  }
}
