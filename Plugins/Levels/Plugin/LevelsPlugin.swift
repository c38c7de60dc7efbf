import FeatureKit
import LevelsFeature

/// The plugin's one exported symbol.
@_cdecl("fh_plugin_entry_v1")
public func levelsPluginEntry() -> UnsafeRawPointer? {
  FeatureExport.plugin(LevelsFeature.self)
}
