import FeatureKit
import KittensFeature

/// The plugin's one exported symbol.
@_cdecl("fh_plugin_entry_v1")
public func kittensPluginEntry() -> UnsafeRawPointer? {
  FeatureExport.plugin(KittensFeature.self)
}
