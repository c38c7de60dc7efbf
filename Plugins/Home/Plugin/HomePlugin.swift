import FeatureKit
import HomeFeature

/// The plugin's one exported symbol.
@_cdecl("fh_plugin_entry_v1")
public func homePluginEntry() -> UnsafeRawPointer? {
  FeatureExport.plugin(HomeFeature.self)
}
