@testable import HostKit

/// A test's wrapper of an instance: every call goes to `base` unless the wrapper says otherwise.
protocol ForwardingInstance: PluginInstance {
  var base: any PluginInstance { get }
}

extension ForwardingInstance {
  var plugin: LoadedPlugin { base.plugin }
  func start() throws(PluginCallError) { try base.start() }
  func dispatch(_ json: String) throws(PluginCallError) -> Bool { try base.dispatch(json) }
  func reduce(_ json: String) throws(PluginCallError) -> Bool { try base.reduce(json) }
  func snapshot() throws(PluginCallError) -> String { try base.snapshot() }
  func restore(_ json: String) throws(PluginCallError) { try base.restore(json) }
  func render() throws(PluginCallError) -> String { try base.render() }
  func stop() throws(PluginCallError) { try base.stop() }
  func destroy() { base.destroy() }
}
