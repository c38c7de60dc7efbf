import FeatureABI
import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// The plugin under test, opened as far as the structural checks (`loads`, `entry`,
/// `descriptor`) go. Each step is its own function so each check can stop after its own step; the
/// descriptor and manifest rules are the loader's (`DescriptorRules`).
///
/// The library is never closed (RTLD_NODELETE), as the host does for Swift plugins.
struct ConformanceSubject {
  let path: String
  let functions: fh_plugin
  let manifestJSON: UnsafePointer<CChar>
  /// The ABI minor the plugin declares: the rules it is judged by.
  let abiMinor: UInt32

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

  /// `descriptor`: `DescriptorRules`, the loader's own rules, so validate and list agree.
  static func checkDescriptor(
    _ descriptor: UnsafePointer<fh_plugin>, path: String
  ) throws(StepFailure) -> ConformanceSubject {
    do throws(DescriptorRules.Problem) {
      let checked = try DescriptorRules.check(descriptor)
      let functions = checked.functions
      return ConformanceSubject(
        path: path, functions: functions, manifestJSON: functions.manifest_json, abiMinor: checked.abiMinor)
    } catch {
      throw StepFailure(check: .descriptor, why: error.why)
    }
  }

  /// The catalogue of actions, read leniently: the manifest's identity fields are set aside so a
  /// bad name fails `manifest` alone and the behaviour checks still run. Throws when the actions
  /// themselves cannot be read, since those checks are built from them.
  func catalogue() throws(CheckFailure) -> [ActionSpec] {
    guard let text = String(validatingCString: manifestJSON),
      let object = (try? JSONValue.parse(text))?.objectValue
    else {
      throw CheckFailure.skipped(needing: .manifest, "the manifest is not a UTF-8 JSON object")
    }
    let actionsOnly: JSONValue = .object([
      "id": "x", "name": "x", "version": "x", "actions": object["actions"] ?? .array([]),
    ])
    do {
      return try Manifest(json: actionsOnly.serialized()).actions
    } catch {
      throw CheckFailure.skipped(needing: .manifest, "the manifest's actions cannot be read: \(error.message)")
    }
  }
}
