import FeatureABI
import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// Exports a feature through the C ABI. The `ActionDecoding` build plugin writes the call into
/// the feature's module (a record FeatureKit's weak `fh_plugin_entry_v1` calls), so the dynamic
/// library product of that module is the plugin. Without the build plugin, export it by hand:
///
///     @_cdecl("fh_plugin_entry_v1")
///     public func entry() -> UnsafeRawPointer? { FeatureExport.plugin(CounterFeature.self) }
///
/// Each plugin image holds one feature; the descriptor is built once and lives for the process.
public enum FeatureExport {
  /// The static descriptor for `F`. Thread-safe; every call returns the same pointer.
  ///
  /// NULL, with one line on standard error naming the action, when the manifest's catalogue and
  /// `F.Action` disagree: the host then refuses the plugin at load instead of offering actions
  /// that cannot be decoded.
  ///
  /// Inlinable so that the plugin compiles the dispatch path where `F` is concrete: decoding and
  /// reducing then run specialized for its feature, instead of FeatureKit's generic code looking
  /// up `F`'s metadata and witnesses at every step.
  @inlinable
  public static func plugin<F: Feature>(_ feature: F.Type) -> UnsafeRawPointer? {
    register(F.self) { object, json, flags, runsEffects in
      guard type(of: object) == FeatureInstance<F>.self else {
        return runsEffects ? object.dispatch(json, flags: &flags) : object.reduce(json, flags: &flags)
      }
      return unsafeDowncast(object, to: FeatureInstance<F>.self).applyIfAllowed(
        json, flags: &flags, runsEffects: runsEffects)
    }
  }

  @usableFromInline
  typealias ApplyFunction = (AnyFeatureInstance, UnsafePointer<CChar>, inout UInt32, Bool) -> fh_status

  @usableFromInline
  static func register<F: Feature>(_ feature: F.Type, apply: @escaping ApplyFunction) -> UnsafeRawPointer? {
    registration.withLock { registration -> UnsafeRawPointer? in
      if let existing = registration {
        precondition(existing.featureType == ObjectIdentifier(F.self), "one plugin image exports one feature")
        return UnsafeRawPointer(existing.descriptor)
      }
      guard let manifest = F.exportedManifest else {
        reportOnce(
          "featurekit: the plugin '\(F.manifest.id)' cannot be loaded: its manifest lists no actions and \(F.Action.self) "
            + "has no derived catalogue; add FeatureKit's ActionDecoding build plugin to its target, or list the "
            + "manifest's actions: by hand\n")
        return nil
      }
      if let mismatch = manifest.catalogueMismatch(with: F.Action.self) {
        reportOnce("featurekit: the plugin '\(F.manifest.id)' cannot be loaded: \(mismatch)\n")
        return nil
      }
      let created = Registration(
        featureType: ObjectIdentifier(F.self),
        descriptor: makeDescriptor(manifest: manifest),
        factory: { host, config in
          let feature = try F(config: config)
          if let problem = config.unknownSettingProblem(feature: F.manifest.id) { throw FeatureError(problem) }
          return FeatureInstance(feature: feature, host: HostConnection(host))
        }
      )
      applyFunction = apply
      offersStructuredView = F.self is any StructuredViewFeature.Type
      registration = created
      return UnsafeRawPointer(created.descriptor)
    }
  }

  // @unchecked: written once under `registration`; the descriptor is immutable after that.
  fileprivate struct Registration: @unchecked Sendable {
    let featureType: ObjectIdentifier
    let descriptor: UnsafeMutablePointer<fh_plugin>
    let factory: (UnsafePointer<fh_host>, FeatureConfig) throws -> AnyFeatureInstance
  }

  fileprivate static let registration = Locked<Registration?>(nil)

  private static let reported = Locked(false)

  /// Writes `line` to standard error the first time only: the host may call the entry again.
  private static func reportOnce(_ line: String) {
    guard
      reported.withLock({ done in
        defer { done = true }
        return !done
      })
    else { return }
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
  }

  /// Dispatch and reduce for the image's one feature, specialized for it.
  // nonisolated(unsafe): written once, under `registration`, before the descriptor is handed out;
  // read only by the descriptor's functions, which the host calls after it got the descriptor.
  // Unchecked at run time for the same reason: every dispatch reads it.
  @exclusivity(unchecked) fileprivate nonisolated(unsafe) static var applyFunction: ApplyFunction?

  /// Whether the image's feature has a structured view (`fh.structured_view/1`).
  // nonisolated(unsafe): written once, like `applyFunction`, before the descriptor is handed out.
  nonisolated(unsafe) static var offersStructuredView = false

  private static func makeDescriptor(manifest: Manifest) -> UnsafeMutablePointer<fh_plugin> {
    let descriptor = UnsafeMutablePointer<fh_plugin>.allocate(capacity: 1)
    descriptor.initialize(
      to: fh_plugin(
        struct_size: UInt32(MemoryLayout<fh_plugin>.size),
        abi_major: FH_ABI_MAJOR,
        // FeatureKit keeps every rule of ABI 1.1; a later header does not change what it keeps.
        abi_minor: 1,
        reserved: 0,
        manifest_json: UnsafePointer(strdup(manifest.json.serialized())),
        create: glueCreate,
        start: { instance($0)?.start() ?? fh_status(FH_ERR_LIFECYCLE) },
        dispatch: { applyAction($0, $1, $2, runsEffects: true) },
        reduce: { applyAction($0, $1, $2, runsEffects: false) },
        snapshot: { pointer, out in handOutText(pointer, out) { object, text in object.snapshot(&text) } },
        restore: { pointer, json in
          guard let object = instance(pointer) else { return fh_status(FH_ERR_LIFECYCLE) }
          guard let json else { return object.fail(FH_ERR_BAD_STATE, "state JSON is NULL") }
          return object.restore(json)
        },
        render: { pointer, out in handOutText(pointer, out) { object, text in object.render(&text) } },
        stop: { instance($0)?.stop() ?? fh_status(FH_ERR_LIFECYCLE) },
        destroy: { pointer in
          guard let pointer else { return }
          // The instance stops its effects in deinit if it is still started.
          Unmanaged<AnyFeatureInstance>.fromOpaque(UnsafeRawPointer(pointer)).release()
        },
        last_error: { pointer in
          guard let pointer else { return nil }
          let object = Unmanaged<AnyFeatureInstance>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
          return object.lastError.value ?? emptyString
        },
        get_extension: { FeatureExport.pluginExtension($0) }
      )
    )
    return descriptor
  }
}

/// The `fh.structured_view/1` table: static, the same for every instance.
nonisolated(unsafe) let structuredViewExtension: UnsafeMutablePointer<fh_structured_view> = {
  let table = UnsafeMutablePointer<fh_structured_view>.allocate(capacity: 1)
  table.initialize(
    to: fh_structured_view(
      struct_size: UInt32(MemoryLayout<fh_structured_view>.size),
      reserved: 0,
      render_structured: { pointer, out in
        handOutText(pointer, out) { object, text in object.renderStructured(&text) }
      }
    ))
  return table
}()

private nonisolated(unsafe) let emptyString: UnsafePointer<CChar> = {
  let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
  pointer.initialize(to: 0)
  return UnsafePointer(pointer)
}()

/// The C side of dispatch and reduce: checks the pointers, applies the action, reports the flags.
private func applyAction(
  _ pointer: OpaquePointer?, _ json: UnsafePointer<CChar>?, _ outFlags: UnsafeMutablePointer<UInt32>?,
  runsEffects: Bool
) -> fh_status {
  guard let object = instance(pointer) else { return fh_status(FH_ERR_LIFECYCLE) }
  guard let json else { return object.fail(FH_ERR_BAD_ACTION, "action JSON is NULL") }
  guard let apply = FeatureExport.applyFunction else { return fh_status(FH_ERR_INTERNAL) }
  var flags: UInt32 = 0
  let status = apply(object, json, &flags, runsEffects)
  outFlags?.pointee = flags
  return status
}

/// Calls `call` on the instance behind `pointer` and hands the text it made out through `out`: every
/// ABI call that answers with a string.
func handOutText(
  _ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
  _ call: (AnyFeatureInstance, inout UnsafePointer<CChar>?) -> fh_status
) -> fh_status {
  guard let object = instance(pointer) else { return fh_status(FH_ERR_LIFECYCLE) }
  var text: UnsafePointer<CChar>?
  let status = call(object, &text)
  out?.pointee = text
  return status
}

private func instance(_ pointer: OpaquePointer?) -> AnyFeatureInstance? {
  guard let pointer else { return nil }
  return Unmanaged<AnyFeatureInstance>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

private let glueCreate:
  @convention(c) (
    UnsafePointer<fh_host>?, UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?
  ) -> fh_status = { host, configJSON, out in
    out?.pointee = nil
    guard let host, let out else { return fh_status(FH_ERR_INTERNAL) }
    guard let factory = FeatureExport.registration.withLock({ $0?.factory }) else {
      return fh_status(FH_ERR_INTERNAL)
    }
    let failed = FailedInstance()
    do {
      let config: [String: JSONValue]
      if let configJSON {
        let value = try JSONValue.parse(utf8CString: configJSON)
        guard let object = value.objectValue else {
          throw FeatureError("config must be a JSON object, got \(value.serialized())")
        }
        config = object
      } else {
        throw FeatureError("config JSON is NULL; pass \"{}\" for the defaults")
      }
      let created = try factory(host, FeatureConfig(values: config))
      out.pointee = OpaquePointer(Unmanaged.passRetained(created).toOpaque())
      return fh_status(FH_OK)
    } catch let error as JSONParseError {
      out.pointee = OpaquePointer(Unmanaged<AnyFeatureInstance>.passRetained(failed).toOpaque())
      return failed.fail(FH_ERR_BAD_CONFIG, "config is not valid JSON: \(error)")
    } catch {
      out.pointee = OpaquePointer(Unmanaged<AnyFeatureInstance>.passRetained(failed).toOpaque())
      return failed.fail(FH_ERR_BAD_CONFIG, "config refused: \(error)")
    }
  }

/// What create hands back when it fails: only last_error and destroy work on it.
private final class FailedInstance: AnyFeatureInstance {
  private func refuse(_ call: String) -> fh_status {
    fail(FH_ERR_LIFECYCLE, "\(call) is not allowed: the instance failed to be created")
  }
  override func start() -> fh_status { refuse("start") }
  override func dispatch(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status { refuse("dispatch") }
  override func reduce(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status { refuse("reduce") }
  override func snapshot(_ out: inout UnsafePointer<CChar>?) -> fh_status { refuse("snapshot") }
  override func restore(_ json: UnsafePointer<CChar>) -> fh_status { refuse("restore") }
  override func render(_ out: inout UnsafePointer<CChar>?) -> fh_status { refuse("render") }
  override func stop() -> fh_status { refuse("stop") }
}
