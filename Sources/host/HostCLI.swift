import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// Parses the command line and runs one command. Errors are rendered in one place, `run`.
struct HostCLI {
  let console: Console

  /// The name usage and help give the host.
  static let programName = "host"

  /// Options every command shares.
  struct Global {
    var pluginDirectories: [String] = []
    /// How long the scanner may take over one new or changed plugin file.
    var scanTimeout = RunSettingCatalogue.scanTimeout.defaultValue
  }

  /// Returns the exit code.
  func run(_ arguments: [String]) -> Int32 {
    let console = console
    SandboxWarnings.sink.withLock { $0 = { console.warn($0) } }
    var command: CommandSpec?
    do {
      return try dispatch(arguments, command: &command)
    } catch {
      console.report(error)
      if error.kind == .usage { console.err("\nrun '\(command?.helpInvocation ?? "host --help")' for usage") }
      return error.exitCode
    }
  }

  /// Reads the options before the command, then the command's arguments, and runs it; `command`
  /// is set once it is known, for the usage hint.
  private func dispatch(_ arguments: [String], command: inout CommandSpec?) throws(HostError) -> Int32 {
    var rest = arguments[...]
    // The main flow takes run's options: `host --log-navigation`.
    let leading = try ArgumentReader.readLeadingOptions(&rest, of: CommandTable.global, before: CommandTable.mainFlow)
    if leading.wantsHelp {
      // `host --help run` is `host help run`.
      if let word = rest.first, let named = CommandTable.command(named: word) {
        console.out(HelpText.command(named))
      } else {
        console.out(HelpText.main())
      }
      return 0
    }
    if leading.has(CommandTable.Global.version) {
      console.out("host \(HostVersion.string) (feature ABI \(abiVersion))")
      return 0
    }
    var global = Global(pluginDirectories: leading.texts(CommandTable.Global.plugins))
    for folder in global.pluginDirectories where !FileManager.default.fileExists(atPath: folder) {
      console.warn("plugin folder '\(folder)' (--plugins) does not exist; the other folders are searched")
    }
    if let timeout = leading.duration(CommandTable.Global.scanTimeout) { global.scanTimeout = timeout }
    let spec: CommandSpec
    if let word = rest.first, !ArgumentReader.isOption(word) {
      guard let named = CommandTable.command(named: word) else { throw Self.unknownCommand(word) }
      spec = named
      rest = rest.dropFirst()
    } else {
      spec = CommandTable.mainFlow
    }
    command = spec
    let parsed = try ArgumentReader.read(Array(rest), for: spec)
    if parsed.wantsHelp {
      console.out(HelpText.command(spec.name == CommandTable.mainFlow.name ? CommandTable.run : spec))
      return 0
    }
    switch spec.name {
    case CommandTable.list.name: return try ListCommand(console: console, global: global).run(parsed)
    case CommandTable.run.name: return try RunCommand(console: console, global: global).run(parsed)
    case CommandTable.mainFlow.name:
      return try RunCommand(console: console, global: global, mainFlow: true).run(parsed)
    case CommandTable.validate.name: return try ValidateCommand(console: console, global: global).run(parsed)
    case CommandTable.check.name: return try CheckCommand(console: console, global: global).run(parsed)
    case CommandTable.explore.name: return try ExploreCommand(console: console, global: global).run(parsed)
    case CommandTable.new.name: return try NewCommand(console: console).run(parsed)
    case CommandTable.dev.name: return try DevCommand(console: console, global: global).run(parsed)
    case CommandTable.scan.name: ScanCommand.run(parsed)
    case CommandTable.sessions.name: return try SessionsCommand(console: console).run(parsed)
    case CommandTable.replay.name: return try ReplayCommand(console: console, global: global).run(parsed)
    case CommandTable.devtools.name: return try DevtoolsCommand(console: console, global: global).run(parsed)
    case CommandTable.worker.name: return try WorkerCommand(console: console).run(parsed)
    default: return try help(parsed)
    }
  }

  /// `host help [COMMAND]`: the command's help, or the host's.
  private func help(_ parsed: ParsedArguments) throws(HostError) -> Int32 {
    guard let word = parsed.positionals.first else {
      console.out(HelpText.main())
      return 0
    }
    guard let command = CommandTable.command(named: word) else { throw Self.unknownCommand(word) }
    console.out(HelpText.command(command))
    return 0
  }

  private static func unknownCommand(_ word: String) -> HostError {
    let names = CommandTable.commands.map(\.name)
    return .usage(
      "unknown command '\(word)'",
      help: ArgumentReader.suggest(word, names) ?? "commands: \(names.joined(separator: ", "))")
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

  /// The catalogue of the search folders, from the registry: new or changed files are scanned
  /// in child processes (`host __scan`), the rest read from the cache. No plugin code runs here.
  func discover() -> PluginCatalogue {
    let environment = ChildProcess.currentEnvironment
    let registry = PluginRegistry(
      directories: searchedDirectories,
      cache: RegistryCache.defaultPath(environment: environment).map(RegistryCache.init),
      hostVersion: Self.hostIdentity, scanner: scanner(environment: environment))
    return registry.catalogue()
  }

  /// Runs `host __scan PATH` in a child per file, with the scan timeout.
  private func scanner(environment: [String: String]) -> PluginScanner {
    guard let scanner = ScanCommand.process(timeout: scanTimeout, environment: environment) else {
      return { _ in .rejected(reason: "cannot find the host executable (/proc/self/exe) to scan with", help: nil) }
    }
    return scanner.scanner
  }

  /// The host's version and its executable's identity: a rebuilt host scans again, even when its
  /// version string did not change.
  private static var hostIdentity: String {
    var info = stat()
    guard stat("/proc/self/exe", &info) == 0 else { return HostVersion.string }
    return "\(HostVersion.string) \(FileIdentity(info).key)"
  }
}

typealias Global = HostCLI.Global
