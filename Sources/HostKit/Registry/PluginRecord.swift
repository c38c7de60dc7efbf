import FeatureABI

/// A plugin as the registry knows it: its file, manifest and ABI version, read by a scanner
/// without loading it into this process.
///
/// `load()` is what runs the plugin's code here: call it only for a feature that is launched.
public struct PluginRecord: Sendable, Equatable {
  public let path: String
  public let manifest: Manifest
  public let abiMajor: UInt32
  public let abiMinor: UInt32
  /// The descriptor's struct_size as the plugin declared it.
  public let structSize: UInt32

  public var id: String { manifest.id }

  public init(path: String, manifest: Manifest, abiMajor: UInt32, abiMinor: UInt32, structSize: UInt32) {
    self.path = path
    self.manifest = manifest
    self.abiMajor = abiMajor
    self.abiMinor = abiMinor
    self.structSize = structSize
  }

  /// The record of a plugin already loaded.
  public init(_ plugin: LoadedPlugin) {
    self.init(
      path: plugin.path, manifest: plugin.manifest, abiMajor: plugin.abiMajor, abiMinor: plugin.abiMinor,
      structSize: plugin.structSize)
  }

  /// The plugin as a worker process runs it: the registry's account of it, nothing loaded here.
  /// Only an instance factory that loads the plugin elsewhere may be given it.
  public func described() -> LoadedPlugin {
    LoadedPlugin(
      path: path, manifest: manifest, abiMajor: abiMajor, abiMinor: abiMinor, structSize: structSize,
      functions: fh_plugin(), isLoadedHere: false)
  }

  /// Loads the plugin into this process. Throws `RegistryFailure.cannotLoad` when the file no
  /// longer loads, `.changedSinceScan` when it now holds another feature.
  public func load() throws(HostError) -> LoadedPlugin {
    let plugin: LoadedPlugin
    do {
      plugin = try PluginLoader.load(path)
    } catch {
      throw HostError(RegistryFailure.cannotLoad(feature: id, error))
    }
    guard plugin.id == id else {
      throw HostError(RegistryFailure.changedSinceScan(feature: id, path: path, now: plugin.id))
    }
    return plugin
  }
}
