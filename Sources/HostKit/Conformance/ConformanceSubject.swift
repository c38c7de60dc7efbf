import FeatureABI
import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// The plugin under test, opened as far as the structural checks (`loads`, `entry`,
/// `descriptor`) go. Each step is its own function so each check can stop after its own step,
/// and the reasons are finer than the loader's: the validator explains, the loader refuses.
///
/// The library is never closed (RTLD_NODELETE), as the host does for Swift plugins.
struct ConformanceSubject {
  let path: String
  let functions: fh_plugin
  let manifestJSON: UnsafePointer<CChar>

  /// Opens `path` through every structural step; the failure names the step's check.
  static func open(_ path: String) throws(StepFailure) -> ConformanceSubject {
    let handle = try load(path)
    let descriptor = try entry(handle, path: path)
    return try checkDescriptor(descriptor, path: path)
  }

  /// A structural step that failed: which check it belongs to, and why.
  struct StepFailure: Error {
    let check: ConformanceCheck
    let why: String
  }

  /// `loads`: dlopen with RTLD_NOW, so every undefined symbol is resolved now, not at first call.
  static func load(_ path: String) throws(StepFailure) -> UnsafeMutableRawPointer {
    _ = dlerror()
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
      let detail = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
      throw StepFailure(check: .loads, why: "dlopen(RTLD_NOW) refused '\(path)': \(detail)")
    }
    return handle
  }

  /// `entry`: the versioned entry function is exported, returns non-NULL, and returns the same
  /// static descriptor when called again.
  static func entry(_ handle: UnsafeMutableRawPointer, path: String) throws(StepFailure) -> UnsafePointer<fh_plugin> {
    guard let symbol = dlsym(handle, FH_ENTRY_SYMBOL) else {
      let other = (2...4).first { dlsym(handle, "fh_plugin_entry_v\($0)") != nil }
      let hint = other.map { " (it exports fh_plugin_entry_v\($0), ABI \($0))" } ?? ""
      throw StepFailure(check: .entry, why: "the symbol \(FH_ENTRY_SYMBOL) is not exported\(hint)")
    }
    let function = unsafeBitCast(symbol, to: fh_plugin_entry_v1_fn.self)
    guard let descriptor = function() else {
      throw StepFailure(check: .entry, why: "\(FH_ENTRY_SYMBOL)() returned NULL")
    }
    guard function() == descriptor else {
      throw StepFailure(check: .entry, why: "\(FH_ENTRY_SYMBOL)() returned a different descriptor on its second call")
    }
    return descriptor
  }

  /// Generous: a descriptor of ABI 1.x is a few hundred bytes; anything this large is garbage.
  static let largestPlausibleStructSize: UInt32 = 4096

  /// `descriptor`: the leading fields first (never reading past struct_size), then the functions.
  static func checkDescriptor(
    _ descriptor: UnsafePointer<fh_plugin>, path: String
  ) throws(StepFailure) -> ConformanceSubject {
    func failure(_ why: String) -> StepFailure { StepFailure(check: .descriptor, why: why) }
    let base = UnsafeRawPointer(descriptor)
    let size = base.load(as: UInt32.self)
    guard size >= 12 else { throw failure("struct_size \(size) is too small to hold abi_major and abi_minor") }
    let major = base.load(fromByteOffset: 4, as: UInt32.self)
    let minor = base.load(fromByteOffset: 8, as: UInt32.self)
    guard major == FH_ABI_MAJOR else { throw failure("abi_major \(major) is not this host's \(FH_ABI_MAJOR)") }
    guard minor <= FH_ABI_MINOR else {
      throw failure("abi_minor \(minor) is newer than this host's \(FH_ABI_MAJOR).\(FH_ABI_MINOR)")
    }
    let needed = UInt32(MemoryLayout<fh_plugin>.size)
    guard size <= largestPlausibleStructSize else {
      throw failure("struct_size \(size) is implausibly large; set it to sizeof(fh_plugin), \(needed)")
    }
    // The header's size rule, as the loader reads it: a shorter (older) descriptor is fine while
    // it reaches every required field; a longer one's tail is never read.
    let declared = DeclaredStruct(reading: base, empty: fh_plugin())
    let functions = declared.value
    guard functions.reserved == 0 else { throw failure("reserved is \(functions.reserved), not 0") }
    let missing = declared.missingRequiredField()
    if let cut = missing.cut {
      throw failure("struct_size \(size) ends before '\(cut)', a required field (sizeof(fh_plugin) is \(needed))")
    }
    if let null = missing.null { throw failure("\(null) is NULL") }
    guard let manifestJSON = functions.manifest_json else { throw failure("manifest_json is NULL") }
    return ConformanceSubject(path: path, functions: functions, manifestJSON: manifestJSON)
  }

  /// The catalogue of actions, read leniently: the manifest's identity fields are set aside so a
  /// bad name fails `manifest` alone and the behaviour checks still run. Throws when the actions
  /// themselves cannot be read, since those checks are built from them.
  func catalogue() throws(CheckFailure) -> [PluginManifest.Action] {
    guard let text = String(validatingCString: manifestJSON),
      let object = (try? JSONValue.parse(text))?.objectValue
    else {
      throw CheckFailure("not run: the manifest is not a UTF-8 JSON object (see 'manifest')")
    }
    let actionsOnly: JSONValue = .object([
      "id": "x", "name": "x", "version": "x", "actions": object["actions"] ?? .array([]),
    ])
    do {
      return try PluginManifest(json: actionsOnly.serialized()).actions
    } catch {
      throw CheckFailure("not run: the manifest's actions cannot be read: \(error.message) (see 'manifest')")
    }
  }
}
