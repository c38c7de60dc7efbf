/// Makes instances: in this process today; worker processes and reloaders are other factories.
public struct InstanceFactory: Sendable {
  private let make: @Sendable (LoadedPlugin, String, any InstanceCallbackTarget) throws(HostError) -> any PluginInstance
  /// Whether its instances run the plugin's code in this process, so the plugin must be loaded
  /// here; false: `PluginRecord.described()` is all it needs.
  public let runsPluginsHere: Bool
  private let ahead: (@Sendable () -> Void)?

  public init(
    runsPluginsHere: Bool = true, prepare: (@Sendable () -> Void)? = nil,
    _ make:
      @escaping @Sendable (LoadedPlugin, String, any InstanceCallbackTarget) throws(HostError) ->
      any PluginInstance
  ) {
    self.make = make
    self.runsPluginsHere = runsPluginsHere
    ahead = prepare
  }

  /// Starts, on another thread, what the first instance will need (a worker process), so that it
  /// is ready when the host has read its settings and plugins. Nothing for instances in this
  /// process. What nobody takes is ended by `discardPrepared()`.
  public func prepare() { ahead?() }

  /// Ends what `prepare` started that no instance took.
  public static func discardPrepared() { WorkerSpare.shared.discard() }

  /// From now on, a worker that answered its destroy is not waited for: the host is ending
  /// (its last features closing), and each worker leaves right after that answer, or is killed
  /// by the kernel when the host goes. Saves the exit of a run about a millisecond a worker.
  /// A worker that did not answer is still ended and reaped.
  public static func workersEndWithHost() { WorkerExit.endsWithHost.store(true, ordering: .relaxed) }

  /// Creates an instance of `plugin` with `config` (a JSON object), its callbacks sent to `target`.
  public func makeInstance(
    of plugin: LoadedPlugin, config: String, target: any InstanceCallbackTarget
  ) throws(HostError) -> any PluginInstance {
    try make(plugin, config, target)
  }

  /// The plugin's code runs in the host process: fastest, and a crash in it ends the host.
  public static let inProcess = InstanceFactory { plugin, config, target throws(HostError) in
    try InProcessInstance(plugin: plugin, config: config, target: target)
  }
}
