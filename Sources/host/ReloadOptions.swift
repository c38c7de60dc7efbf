import HostKit

extension HostCLI.Global {
  /// How `run` and the main flow reload features: `--watch`, and new builds checked by the
  /// scanner in a child process, then loaded as `--isolation` says (a copy in this process, or
  /// by each new worker).
  func reloadSettings(_ arguments: ParsedArguments) throws(HostError) -> ReloadSettings {
    var settings = ReloadSettings()
    settings.watches = arguments.has(CommandTable.Run.watch)
    settings.loading = try Isolation.chosen(arguments) == .none ? .inProcess : .workers
    let host = try OwnExecutable.required("to run the plugin scanner")
    settings.scanner =
      ScanCommand.process(host: host, timeout: scanTimeout, environment: ChildProcess.currentEnvironment).scanner
    return settings
  }
}
