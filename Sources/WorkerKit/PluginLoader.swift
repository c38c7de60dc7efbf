import FeatureABI
import FeatureManifest

#if canImport(Glibc)
  import Glibc
#endif

/// A plugin that passed every check: a copy of its descriptor, its ABI version and manifest.
///
/// The copy holds what the plugin's struct_size declares, zero beyond it, so no later read goes
/// past the plugin's descriptor. The library is never unloaded (RTLD_NODELETE; Swift plugins must
/// not be dlclosed), so the function pointers and the manifest string stay valid for the process.
// @unchecked: fh_plugin holds C pointers to static, immutable plugin data.
public struct LoadedPlugin: @unchecked Sendable {
  public let path: String
  public let manifest: Manifest
  public let abiMajor: UInt32
  public let abiMinor: UInt32
  /// The descriptor's struct_size as the plugin declared it.
  public let structSize: UInt32
  /// The descriptor, read within `structSize`; `get_extension` is nil when the size does not reach it.
  package let functions: fh_plugin
  /// False for a plugin only described (by the registry, for workers to load): `functions` is
  /// empty and nothing in this process may call it.
  package var isLoadedHere = true

  package init(
    path: String, manifest: Manifest, abiMajor: UInt32, abiMinor: UInt32, structSize: UInt32, functions: fh_plugin,
    isLoadedHere: Bool = true
  ) {
    (self.path, self.manifest, self.abiMajor, self.abiMinor) = (path, manifest, abiMajor, abiMinor)
    (self.structSize, self.functions, self.isLoadedHere) = (structSize, functions, isLoadedHere)
  }

  public var id: String { manifest.id }
}

/// Why a plugin file could not be used. The message names the file (and symbol or field).
public struct PluginLoadError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Reason: Sendable, Equatable {
    case untrusted, notSharedLibrary, noEntrySymbol, entryReturnedNull, wrongMajor, newerMinor
    case structTooSmall, missingFunction, badManifest
    /// reserved is not zero, or struct_size is implausibly large.
    case badDescriptor
  }

  public let reason: Reason
  public let path: String
  public let message: String
  public let help: String?

  public var description: String { message }

  /// The error as the host reports it.
  public var hostError: HostError { HostError(message, help: help) }
}

/// Loads plugin libraries and checks them before any plugin code beyond the entry function runs.
public enum PluginLoader {
  /// A step of a load in which plugin code or plugin data is touched: where a crash happened.
  public enum Phase: String, Sendable, CaseIterable {
    /// dlopen, which runs the library's constructors.
    case dlopen
    case entry = "fh_plugin_entry_v1"
    /// Reading the descriptor's fields within its struct_size.
    case descriptor
    /// Reading and parsing the manifest_json string.
    case manifest

    /// Where a load that died in this phase died: `in fh_plugin_entry_v1`.
    public var place: String {
      switch self {
      case .dlopen: "in dlopen (the library's constructors)"
      case .entry: "in fh_plugin_entry_v1"
      case .descriptor: "reading the descriptor"
      case .manifest: "reading manifest_json"
      }
    }
  }

  /// Opens `path` with RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE, finds `fh_plugin_entry_v1`, and
  /// checks the descriptor and its manifest by `DescriptorRules`, the validator's rules too. `entering` hears each phase before it starts (a scanner
  /// leaves it as a breadcrumb, so a crash can be placed).
  public static func load(
    _ path: String, entering: (Phase) -> Void = { _ in }
  ) throws(PluginLoadError) -> LoadedPlugin {
    func failure(_ reason: PluginLoadError.Reason, _ message: String, help: String? = nil) -> PluginLoadError {
      PluginLoadError(reason: reason, path: path, message: message, help: help)
    }
    _ = dlerror()
    entering(.dlopen)
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
      let detail = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
      throw failure(
        .notSharedLibrary, "'\(path)' is not a loadable shared library: \(detail)",
        help: "build the plugin as a shared library for this machine (swift build, or cc -shared -fPIC)")
    }
    guard let symbol = dlsym(handle, FH_ENTRY_SYMBOL) else {
      let other = (2...4).first { dlsym(handle, "fh_plugin_entry_v\($0)") != nil }
      if let other {
        throw failure(
          .wrongMajor, "'\(path)' exports fh_plugin_entry_v\(other) (ABI \(other)); this host speaks ABI 1",
          help: "rebuild the plugin against this host's feature_abi.h, or use a newer host")
      }
      throw failure(
        .noEntrySymbol, "'\(path)' does not export the symbol '\(FH_ENTRY_SYMBOL)'",
        help: "a plugin exports fh_plugin_entry_v1 (see Sources/FeatureABI/include/feature_abi.h)")
    }
    let entry = unsafeBitCast(symbol, to: fh_plugin_entry_v1_fn.self)
    entering(.entry)
    guard let raw = entry() else {
      throw failure(
        .entryReturnedNull, "\(FH_ENTRY_SYMBOL) in '\(path)' returned NULL",
        help: "the plugin refused to run in this process; check its own log output")
    }
    entering(.descriptor)
    let checked: DescriptorRules.Checked
    let manifest: Manifest
    do throws(DescriptorRules.Problem) {
      checked = try DescriptorRules.check(raw)
      entering(.manifest)
      manifest = try DescriptorRules.manifest(checked.functions.manifest_json)
    } catch {
      throw failure(error.reason, "'\(path)': \(error.why)", help: error.help)
    }
    let plugin = checked.functions
    let (major, minor, structSize) = (checked.abiMajor, checked.abiMinor, checked.structSize)
    return LoadedPlugin(
      path: path, manifest: manifest, abiMajor: major, abiMinor: minor, structSize: structSize, functions: plugin)
  }
}
