import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// Parses the command line and runs one command. Errors are rendered in one place, `run`.
struct HostCLI {
  let console: Console

  static let usage = """
    usage: host [--plugins DIR]... [<command>] [options]

    Runs MVI feature plugins (shared libraries) in the terminal. With no command: the main flow,
    a home menu of the features found ('host run --help' lists its options).

    commands:
      list                 list the features found, and the plugin files that were rejected
      run ID               run one feature: type actions, see its view
      validate PLUGIN.so   check one plugin file against the plugin contract, check by check
      check FILE|DIR...    run transcripts (typed input and the exact output expected)
      new NAME             create a plugin folder: a feature skeleton and a passing test
      sessions [rm NAME]   list the saved sessions, or remove one
      replay FILE          replay a session's journal with effects off, checking its snapshots
      help [COMMAND]       show help for a command

    options:
      --plugins DIR        look for plugins in DIR first (repeatable); then FEATUREHOST_PLUGIN_PATH
                           (colon-separated), then the folder the host was built into
      -h, --help           show this help
      --version            print the host's version

    exit codes: 0 ok, 1 failure, 64 usage error
    """

  /// Options every command shares.
  struct Global {
    var pluginDirectories: [String] = []
  }

  /// Returns the exit code.
  func run(_ arguments: [String]) -> Int32 {
    do {
      return try dispatch(arguments)
    } catch {
      console.report(error)
      if error.kind == .usage { console.err("\nrun 'host --help' for usage") }
      return error.exitCode
    }
  }

  private func dispatch(_ arguments: [String]) throws(HostError) -> Int32 {
    var global = Global()
    var rest = arguments[...]
    while let first = rest.first, first.hasPrefix("-") {
      // The main flow takes run's options: `host --log-navigation`.
      if Self.mainFlowOptions.contains(first) { break }
      rest = rest.dropFirst()
      switch first {
      case "--plugins":
        guard let directory = rest.first else { throw .usage("--plugins needs a folder") }
        global.pluginDirectories.append(directory)
        rest = rest.dropFirst()
      case "-h", "--help":
        console.out(Self.usage)
        return 0
      case "--version":
        console.out("host \(HostVersion.string) (feature ABI \(abiVersion))")
        return 0
      default:
        throw .usage("unknown option '\(first)'", help: Self.suggest(first, ["--plugins", "--help", "--version"]))
      }
    }
    guard let command = rest.first, !Self.mainFlowOptions.contains(command) else {
      return try RunCommand(console: console, global: global, mainFlow: true).run(Array(rest))
    }
    let options = Array(rest.dropFirst())
    switch command {
    case "list": return try ListCommand(console: console, global: global).run(options)
    case "run": return try RunCommand(console: console, global: global).run(options)
    case "validate": return try ValidateCommand(console: console).run(options)
    case "check": return try CheckCommand(console: console, global: global).run(options)
    case "new": return try NewCommand(console: console).run(options)
    case "sessions": return try SessionsCommand(console: console).run(options)
    case "replay": return try ReplayCommand(console: console, global: global).run(options)
    case "help":
      switch options.first {
      case "list": console.out(ListCommand.usage)
      case "run": console.out(RunCommand.usage)
      case "validate": console.out(ValidateCommand.usage)
      case "check": console.out(CheckCommand.usage)
      case "new": console.out(NewCommand.usage)
      case "sessions": console.out(SessionsCommand.usage)
      case "replay": console.out(ReplayCommand.usage)
      default: console.out(Self.usage)
      }
      return 0
    default:
      throw .usage(
        "unknown command '\(command)'",
        help: Self.suggest(command, Self.commands) ?? "commands: \(Self.commands.joined(separator: ", "))")
    }
  }

  /// The options of `run` that `host` alone (the main flow) takes too.
  static let mainFlowOptions: Set<String> = [
    "--log-navigation", "--session", "--config", "--max-feedback-steps", "--settle-timeout",
  ]

  /// Every command, for suggestions.
  static let commands = ["list", "run", "validate", "check", "new", "sessions", "replay", "help"]

  static func suggest(_ input: String, _ candidates: [String]) -> String? {
    Suggestion.closest(to: input, in: candidates).map { "did you mean '\($0)'?" }
  }

  private var abiVersion: String { "\(HostABI.major).\(HostABI.minor)" }
}

extension HostCLI.Global {
  /// The plugin folders in search order.
  var searchedDirectories: [String] {
    var environment: [String: String] = [:]
    if let path = getenv("FEATUREHOST_PLUGIN_PATH") {
      environment["FEATUREHOST_PLUGIN_PATH"] = String(cString: path)
    }
    return PluginDiscovery.searchDirectories(
      explicit: pluginDirectories, environment: environment, buildFolder: PluginDiscovery.buildFolder)
  }

  /// Scans the search folders in order.
  func discover() -> PluginDiscovery.Result {
    PluginDiscovery(directories: searchedDirectories).scan()
  }
}

typealias Global = HostCLI.Global
