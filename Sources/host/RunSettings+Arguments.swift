import HostKit

extension RunSettings {
  /// The settings of `host run`, the main flow and `host dev`, read from their options once: an
  /// option a command does not take is absent and keeps its default (`RunSettingCatalogue`).
  /// The config is read by each command (`configGiven` says whether there was one); the session
  /// name is checked here.
  init(_ arguments: ParsedArguments, global: HostCLI.Global) throws(HostError) {
    self.init()
    configGiven = !arguments.texts(CommandTable.Run.config).isEmpty
    logsNavigation = arguments.has(CommandTable.Run.logNavigation)
    if let name = arguments.text(CommandTable.Run.session) {
      do {
        try SessionDirectory.checkName(name)
      } catch {
        throw .usage(error.message, help: error.help)
      }
      session = name
    }
    if let steps = arguments.count(CommandTable.Run.maxFeedbackSteps) { store.maxFeedbackSteps = steps }
    if let bytes = arguments.count(CommandTable.Run.maxLineBytes) { maxLineBytes = bytes }
    if let timeout = arguments.duration(CommandTable.Run.settleTimeout) { settleTimeout = timeout }
    instances = try Isolation.factory(arguments)
    reload = try global.reloadSettings(arguments)
  }
}
