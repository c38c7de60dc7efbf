import FeatureABI

#if canImport(Glibc)
  import Glibc
#endif

/// A call on an instance that the plugin refused: its status and the instance's own message.
/// An instance whose plugin runs in this process: direct C calls, callbacks through libffi.
///
/// Not thread-safe and not `Sendable`: the ABI requires calls on one instance to be serialized,
/// and its owner (a store) makes every call from one thread at a time. Strings the plugin returns
/// are copied at once.
public final class InProcessInstance: PluginInstance {
  public let plugin: LoadedPlugin
  private let functions: fh_plugin
  /// nil once destroyed.
  private var handle: OpaquePointer?
  private var binding: CallbackBinding?
  /// The plugin's `fh.render_options/1` `render_with`, if it offers one.
  private let renderWith: RenderWithFunction?

  /// Creates an instance with `config` (a JSON object), its callbacks delivered to `target`.
  public init(plugin: LoadedPlugin, config: String, target: any InstanceCallbackTarget) throws(HostError) {
    guard plugin.isLoadedHere else {
      throw HostError("'\(plugin.path)' is not loaded in this process: its instances run in worker processes")
    }
    self.plugin = plugin
    let functions = plugin.functions
    let binding = try CallbackBinding(target: target, hostVersion: HostVersion.cString)
    self.functions = functions
    self.binding = binding
    renderWith = Self.renderWith(of: functions)
    var created: OpaquePointer?
    let status = config.withCString { functions.create(binding.host, $0, &created) }
    guard status == fh_status(FH_OK), let created else {
      var message = "create failed with status \(status)"
      if let created {
        message = functions.last_error(created).map { String(cString: $0) } ?? message
        functions.destroy(created)
      }
      // `binding` is freed with this scope: the plugin's instance is gone.
      throw HostError(
        StoreFailure.configRefused(
          feature: plugin.id, config: config, PluginCallError(call: "create", status: status, message: message)))
    }
    handle = created
  }

  deinit {
    destroy()
  }

  public func destroy() {
    guard let handle else { return }
    functions.destroy(handle)
    self.handle = nil
    // The plugin may call nothing after destroy, but one that breaks the rule from a stray
    // thread must reach a dead end, not another instance's callbacks: quarantine, then free.
    if let binding { CallbackBinding.retire(binding) }
    binding = nil
  }

  /// The live handle, or the lifecycle error a destroyed instance answers with.
  private func live(_ call: String) throws(PluginCallError) -> OpaquePointer {
    guard let handle else {
      throw PluginCallError(
        call: call, status: fh_status(FH_ERR_LIFECYCLE), message: "\(call) on an instance that was destroyed")
    }
    return handle
  }

  public func start() throws(PluginCallError) {
    let handle = try live("start")
    try check("start", functions.start(handle), handle)
  }

  /// Reduces one action; returns whether the plugin reports the state as changed.
  public func dispatch(_ json: String) throws(PluginCallError) -> Bool {
    try apply("dispatch", json, functions.dispatch)
  }

  /// Reduces one action without effects or feedbacks (replay, time travel); returns whether the
  /// state changed.
  public func reduce(_ json: String) throws(PluginCallError) -> Bool {
    try apply("reduce", json, functions.reduce)
  }

  /// `dispatch` and `reduce` of a NUL-terminated text the caller holds (a worker's frame).
  public func dispatch(cString json: UnsafePointer<CChar>) throws(PluginCallError) -> Bool {
    try apply("dispatch", cString: json, functions.dispatch)
  }

  public func reduce(cString json: UnsafePointer<CChar>) throws(PluginCallError) -> Bool {
    try apply("reduce", cString: json, functions.reduce)
  }

  /// Calls `function` (the plugin's dispatch or reduce) with `json`; returns whether the plugin
  /// reports the state as changed.
  private func apply(
    _ call: String, _ json: String,
    _ function: (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UInt32>?) -> fh_status
  ) throws(PluginCallError) -> Bool {
    let result = json.withCString { text in
      Result { () throws(PluginCallError) in try apply(call, cString: text, function) }
    }
    return try result.get()
  }

  private func apply(
    _ call: String, cString json: UnsafePointer<CChar>,
    _ function: (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UInt32>?) -> fh_status
  ) throws(PluginCallError) -> Bool {
    let handle = try live(call)
    var flags: UInt32 = 0
    let status = function(handle, json, &flags)
    try check(call, status, handle)
    return flags & UInt32(FH_DISPATCH_STATE_CHANGED) != 0
  }

  public func snapshot() throws(PluginCallError) -> String {
    let handle = try live("snapshot")
    var text: UnsafePointer<CChar>?
    try check("snapshot", functions.snapshot(handle, &text), handle)
    return text.map { String(cString: $0) } ?? ""
  }

  /// The state JSON as the plugin holds it, handed to `body` without a copy (valid during it).
  public func withSnapshot<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(PluginCallError) -> R {
    let handle = try live("snapshot")
    var text: UnsafePointer<CChar>?
    try check("snapshot", functions.snapshot(handle, &text), handle)
    guard let text else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
    return body(
      UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text)))
  }

  /// `restore` of a NUL-terminated text the caller holds (a worker's frame), not copied.
  public func restore(cString json: UnsafePointer<CChar>) throws(PluginCallError) {
    let handle = try live("restore")
    try check("restore", functions.restore(handle, json), handle)
  }

  public func restore(_ json: String) throws(PluginCallError) {
    let handle = try live("restore")
    let status = json.withCString { functions.restore(handle, $0) }
    try check("restore", status, handle)
  }

  public func render() throws(PluginCallError) -> String {
    let handle = try live("render")
    var text: UnsafePointer<CChar>?
    try check("render", functions.render(handle, &text), handle)
    return text.map { String(cString: $0) } ?? ""
  }

  public func render(_ hints: RenderHints) throws(PluginCallError) -> String {
    hints.isEmpty ? try render() : try render(hintsJSON: hints.json)
  }

  /// The view drawn with `hintsJSON` (a `RenderHints.json`); `render()` when the plugin does not
  /// offer `fh.render_options/1`.
  package func render(hintsJSON: String) throws(PluginCallError) -> String {
    guard let renderWith else { return try render() }
    let handle = try live("render")
    var text: UnsafePointer<CChar>?
    let status = hintsJSON.withCString { renderWith(handle, $0, &text) }
    try check("render", status, handle)
    return text.map { String(cString: $0) } ?? ""
  }

  package typealias RenderWithFunction =
    @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> fh_status

  /// `render_with` of the plugin's `fh.render_options/1`, when its struct reaches that far.
  private static func renderWith(of functions: fh_plugin) -> RenderWithFunction? {
    guard let found = FH_EXT_RENDER_OPTIONS.withCString({ functions.get_extension?($0) }) else { return nil }
    var options = fh_plugin_render_options()
    let declared = fh_struct_read(found, &options, MemoryLayout<fh_plugin_render_options>.size)
    guard let offset = MemoryLayout<fh_plugin_render_options>.offset(of: \.render_with),
      Int(declared) >= offset + MemoryLayout<RenderWithFunction>.size
    else { return nil }
    return options.render_with
  }

  public func structuredView() throws(PluginCallError) -> String? {
    guard let render = plugin.structuredViewFunction else { return nil }
    let handle = try live("render_structured")
    var text: UnsafePointer<CChar>?
    try check("render_structured", render(handle, &text), handle)
    return text.map { String(cString: $0) } ?? ""
  }

  public func stop() throws(PluginCallError) {
    let handle = try live("stop")
    try check("stop", functions.stop(handle), handle)
  }

  private func check(_ call: String, _ status: fh_status, _ handle: OpaquePointer) throws(PluginCallError) {
    guard status != fh_status(FH_OK) else { return }
    let message = functions.last_error(handle).map { String(cString: $0) } ?? ""
    throw PluginCallError(call: call, status: status, message: message)
  }
}

/// The host's version, as reported to plugins and written in journals.
public enum HostVersion {
  public static let string = "0.1.0"
  package nonisolated(unsafe) static let cString: UnsafePointer<CChar> = {
    let bytes = Array(string.utf8CString)
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    pointer.initialize(from: bytes, count: bytes.count)
    return UnsafePointer(pointer)
  }()
}

/// The ABI version this host was built with.
public enum HostABI {
  public static let major = FH_ABI_MAJOR
  public static let minor = FH_ABI_MINOR
}
