import FeatureABI

/// What stands for an instance once its store stopped and destroyed it: the state and view it had
/// at stop, for a caller that asks afterwards (a test's last assertion, a final `:state`). Every
/// other call is refused with `FH_ERR_LIFECYCLE`.
final class RetiredInstance: PluginInstance {
  let plugin: LoadedPlugin
  private let state: String?
  private let view: String?

  init(plugin: LoadedPlugin, state: String?, view: String?) {
    self.plugin = plugin
    self.state = state
    self.view = view
  }

  func start() throws(PluginCallError) { throw refusal("start") }
  func dispatch(_ json: String) throws(PluginCallError) -> Bool { throw refusal("dispatch") }
  func reduce(_ json: String) throws(PluginCallError) -> Bool { throw refusal("reduce") }
  func restore(_ json: String) throws(PluginCallError) { throw refusal("restore") }
  func stop() throws(PluginCallError) { throw refusal("stop") }
  func destroy() {}

  func snapshot() throws(PluginCallError) -> String {
    guard let state else { throw refusal("snapshot") }
    return state
  }

  func render() throws(PluginCallError) -> String {
    guard let view else { throw refusal("render") }
    return view
  }

  private func refusal(_ call: String) -> PluginCallError {
    PluginCallError(
      call: call, status: fh_status(FH_ERR_LIFECYCLE), message: "\(call) on '\(plugin.id)', whose store has stopped")
  }
}
