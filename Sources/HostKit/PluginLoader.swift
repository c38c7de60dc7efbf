import FeatureABI

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
  public let manifest: PluginManifest
  public let abiMajor: UInt32
  public let abiMinor: UInt32
  /// The descriptor's struct_size as the plugin declared it.
  public let structSize: UInt32
  /// The descriptor, read within `structSize`; `get_extension` is nil when the size does not reach it.
  let functions: fh_plugin

  public var id: String { manifest.id }
}

/// Why a plugin file could not be used. The message names the file (and symbol or field).
public struct PluginLoadError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Reason: Sendable, Equatable {
    case untrusted, notSharedLibrary, noEntrySymbol, entryReturnedNull, wrongMajor, newerMinor
    case structTooSmall, missingFunction, badManifest
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

  /// Opens `path` with RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE, finds `fh_plugin_entry_v1`, checks
  /// the descriptor's version (`fh_abi_is_compatible`), reads it within its struct_size, checks its
  /// required functions and its manifest. `entering` hears each phase before it starts (a scanner
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
    // Read only the leading fields until the size says the rest is there.
    let base = UnsafeRawPointer(raw)
    let structSize = base.load(as: UInt32.self)
    guard structSize >= 12 else {
      throw failure(
        .structTooSmall, "the descriptor of '\(path)' is \(structSize) bytes, too small to hold its version",
        help: "struct_size must be sizeof(fh_plugin)")
    }
    let major = base.load(fromByteOffset: 4, as: UInt32.self)
    let minor = base.load(fromByteOffset: 8, as: UInt32.self)
    guard fh_abi_is_compatible(major, minor) != 0 else {
      guard major == FH_ABI_MAJOR else {
        throw failure(
          .wrongMajor, "'\(path)' was built for ABI \(major).\(minor); this host speaks ABI \(FH_ABI_MAJOR)",
          help: "rebuild the plugin against this host's feature_abi.h")
      }
      throw failure(
        .newerMinor,
        "'\(path)' needs ABI \(major).\(minor); this host supports up to \(FH_ABI_MAJOR).\(FH_ABI_MINOR)",
        help: "update the host, or rebuild the plugin against this host's feature_abi.h")
    }
    // A larger descriptor (a plugin knowing fields this host does not) is read up to this host's
    // layout; a smaller one leaves the fields it does not reach zero.
    let copy = DeclaredStruct(reading: base, empty: fh_plugin())
    let plugin = copy.value
    let missing = copy.missingRequiredField()
    if let cut = missing.cut {
      throw failure(
        .structTooSmall,
        "the descriptor of '\(path)' is \(structSize) bytes and ends before '\(cut)', a required field",
        help: "set struct_size to sizeof(fh_plugin) and fill every field")
    }
    if let null = missing.null {
      throw failure(
        .missingFunction, "the descriptor of '\(path)' has no '\(null)' (NULL)",
        help: "every field of fh_plugin except get_extension is required")
    }
    entering(.manifest)
    let manifest: PluginManifest
    do {
      manifest = try PluginManifest(json: String(cString: plugin.manifest_json))
    } catch {
      throw failure(
        .badManifest, "'\(path)': \(error.message)",
        help: "see the manifest_json comment in feature_abi.h for the fields it needs")
    }
    return LoadedPlugin(
      path: path, manifest: manifest, abiMajor: major, abiMinor: minor, structSize: structSize, functions: plugin)
  }
}
