import FeatureABI
import FeatureManifest

#if canImport(Glibc)
  import Glibc
#endif

/// The descriptor and manifest rules of feature_abi.h, in one place: `PluginLoader` (so `list`,
/// `run` and the scanner) and the validator's `descriptor` and `manifest` checks all apply these,
/// so what one loads the other passes and what one refuses the other fails, for the same reason.
public enum DescriptorRules {
  /// A broken rule: the loader's reason code and one line without the file's path (the caller
  /// adds it), plus how to fix it.
  public struct Problem: Error, Sendable, Equatable {
    public let reason: PluginLoadError.Reason
    public let why: String
    public let help: String
  }

  /// What a descriptor that keeps every rule holds.
  public struct Checked {
    /// The descriptor read within its struct_size, zero beyond it.
    package let functions: fh_plugin
    public let structSize: UInt32
    public let abiMajor: UInt32
    public let abiMinor: UInt32
  }

  /// Generous: a descriptor of ABI 1.x is a few hundred bytes; anything this large is garbage.
  public static let largestPlausibleStructSize: UInt32 = 4096

  /// Checks the descriptor at `descriptor`: the leading fields first (never reading past
  /// struct_size), the version (`fh_abi_is_compatible`), `reserved`, then the required fields.
  public static func check(_ descriptor: UnsafePointer<fh_plugin>) throws(Problem) -> Checked {
    let base = UnsafeRawPointer(descriptor)
    let size = base.load(as: UInt32.self)
    let rebuild = "set struct_size to sizeof(fh_plugin) and fill every field"
    guard size >= 12 else {
      throw Problem(
        reason: .structTooSmall, why: "the descriptor is \(size) bytes, too small to hold its version", help: rebuild)
    }
    let major = base.load(fromByteOffset: 4, as: UInt32.self)
    let minor = base.load(fromByteOffset: 8, as: UInt32.self)
    guard fh_abi_is_compatible(major, minor) != 0 else {
      guard major == FH_ABI_MAJOR else {
        throw Problem(
          reason: .wrongMajor,
          why: "it was built for ABI \(major).\(minor) (abi_major \(major)); this host speaks ABI \(FH_ABI_MAJOR)",
          help: "rebuild the plugin against this host's feature_abi.h")
      }
      throw Problem(
        reason: .newerMinor,
        why: "it needs ABI \(major).\(minor); this host supports up to \(FH_ABI_MAJOR).\(FH_ABI_MINOR)",
        help: "update the host, or rebuild the plugin against this host's feature_abi.h")
    }
    let needed = UInt32(MemoryLayout<fh_plugin>.size)
    guard size <= largestPlausibleStructSize else {
      throw Problem(
        reason: .badDescriptor, why: "the descriptor's struct_size \(size) is implausibly large",
        help: "set struct_size to sizeof(fh_plugin), \(needed)")
    }
    // A larger descriptor (a plugin knowing fields this host does not) is read up to this host's
    // layout; a smaller one leaves the fields it does not reach zero.
    let declared = DeclaredStruct(reading: base, empty: fh_plugin())
    let functions = declared.value
    guard functions.reserved == 0 else {
      throw Problem(
        reason: .badDescriptor, why: "the descriptor's reserved field is \(functions.reserved), not 0",
        help: "zero-initialize the descriptor (reserved is for a later ABI minor)")
    }
    let missing = declared.missingRequiredField()
    if let cut = missing.cut {
      throw Problem(
        reason: .structTooSmall,
        why:
          "the descriptor is \(size) bytes and ends before '\(cut)', a required field (sizeof(fh_plugin) is \(needed))",
        help: rebuild)
    }
    if let null = missing.null {
      throw Problem(
        reason: .missingFunction, why: "the descriptor has no '\(null)' (NULL)",
        help: "every field of fh_plugin except get_extension is required")
    }
    return Checked(functions: functions, structSize: size, abiMajor: major, abiMinor: minor)
  }

  /// Reads and checks the manifest at `pointer` (Manifest's rules, after a UTF-8 check).
  public static func manifest(_ pointer: UnsafePointer<CChar>) throws(Problem) -> Manifest {
    let help = "see the manifest_json comment in feature_abi.h for the fields it needs"
    guard let text = String(validatingCString: pointer) else {
      let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)).map { $0 }
      throw Problem(
        reason: .badManifest, why: "manifest_json is not valid UTF-8: \(ConformanceText.quote(bytes: bytes))",
        help: help)
    }
    do {
      return try Manifest(json: text)
    } catch {
      throw Problem(reason: .badManifest, why: error.message, help: help)
    }
  }
}
