/// What makes a store's instances: the plugin, the config and the factory the first was made
/// with, and the callback target that forwards to the store, so that an instance made to restart
/// a lost one, or to reload a new build, is made as the first was.
struct InstanceMaker: Sendable {
  let plugin: LoadedPlugin
  /// A JSON object.
  let config: String
  let factory: InstanceFactory
  let relay: CallbackRelay

  /// A new instance, not started: of the store's plugin, or of `build`'s (a reload).
  func make(of other: LoadedPlugin? = nil) throws(HostError) -> any PluginInstance {
    try factory.makeInstance(of: other ?? plugin, config: config, target: relay)
  }
}
