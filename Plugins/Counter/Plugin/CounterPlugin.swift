import CounterFeature
import FeatureKit

/// The plugin's one exported symbol.
@_cdecl("fh_plugin_entry_v1")
public func counterPluginEntry() -> UnsafeRawPointer? {
  FeatureExport.plugin(CounterFeature.self)
}
