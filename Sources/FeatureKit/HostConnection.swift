import FeatureABI

/// The host callbacks an instance was created with, read once within the host's `struct_size`.
///
/// The pointers are bound to this instance by the host (libffi closures), so they carry no context.
/// Thread-safe: the host documents every callback as callable from any thread.
final class HostConnection: @unchecked Sendable {
  private typealias EmitFunction = @convention(c) (UnsafePointer<CChar>?, fh_origin) -> Void
  private typealias LogFunction = @convention(c) (fh_log_level, UnsafePointer<CChar>?) -> Void
  private typealias SignalFunction = @convention(c) () -> Void
  private typealias ExtensionFunction = @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?
  private typealias StepFunction = @convention(c) (UnsafePointer<CChar>?) -> Void
  private typealias ScheduleFunction = @convention(c) (UInt64, UnsafePointer<CChar>?, fh_origin) -> UInt64
  private typealias CancelFunction = @convention(c) (UInt64) -> Void

  private let emitFunction: EmitFunction?
  private let logFunction: LogFunction?
  private let effectBeganFunction: SignalFunction?
  private let effectEndedFunction: SignalFunction?
  /// `fh.navigation/1`'s emit_step, when the host navigates.
  private let stepFunction: StepFunction?
  /// `fh.clock/1`, when the host keeps time for its instances.
  private let scheduleFunction: ScheduleFunction?
  private let cancelFunction: CancelFunction?

  init(_ host: UnsafePointer<fh_host>) {
    // Read field by field: a host built with an older, smaller fh_host has nothing past its size.
    let base = UnsafeRawPointer(host)
    let size = Int(base.load(as: UInt32.self))
    func field<T>(_ keyPath: PartialKeyPath<fh_host>, as type: T.Type) -> T? {
      guard let offset = MemoryLayout<fh_host>.offset(of: keyPath),
        offset + MemoryLayout<UnsafeRawPointer>.size <= size
      else { return nil }
      return base.load(fromByteOffset: offset, as: Optional<T>.self)
    }
    emitFunction = field(\fh_host.emit, as: EmitFunction.self)
    logFunction = field(\fh_host.log, as: LogFunction.self)
    effectBeganFunction = field(\fh_host.effect_began, as: SignalFunction.self)
    effectEndedFunction = field(\fh_host.effect_ended, as: SignalFunction.self)
    let getExtension = field(\fh_host.get_extension, as: ExtensionFunction.self)
    stepFunction = getExtension.flatMap { lookup in
      Self.navigation(FH_EXT_NAVIGATION.withCString { lookup($0) })
    }
    let clock = getExtension.flatMap { lookup in FH_EXT_CLOCK.withCString { lookup($0) } }
    scheduleFunction = Self.field(of: clock, \fh_host_clock.schedule, as: ScheduleFunction.self)
    cancelFunction = Self.field(of: clock, \fh_host_clock.cancel, as: CancelFunction.self)
  }

  /// A function pointer of a host extension struct, read within its struct_size.
  private static func field<S, T>(of pointer: UnsafeRawPointer?, _ keyPath: PartialKeyPath<S>, as type: T.Type) -> T? {
    guard let pointer, let offset = MemoryLayout<S>.offset(of: keyPath),
      Int(pointer.load(as: UInt32.self)) >= offset + MemoryLayout<UnsafeRawPointer>.size
    else { return nil }
    return pointer.load(fromByteOffset: offset, as: Optional<T>.self)
  }

  /// Whether the host offers timers (`fh.clock/1`).
  var keepsTime: Bool { scheduleFunction != nil && cancelFunction != nil }

  /// Schedules `json` (an action or an array of actions) on the host's clock; 0 when refused.
  func schedule(after nanoseconds: UInt64, _ json: String, origin: fh_origin) -> UInt64 {
    guard let scheduleFunction else { return 0 }
    return json.withCString { scheduleFunction(nanoseconds, $0, origin) }
  }

  func cancelTimer(_ id: UInt64) { cancelFunction?(id) }

  /// The emit_step of a `fh_host_navigation`, read within its struct_size.
  private static func navigation(_ pointer: UnsafeRawPointer?) -> StepFunction? {
    guard let pointer, let offset = MemoryLayout<fh_host_navigation>.offset(of: \.emit_step) else { return nil }
    guard Int(pointer.load(as: UInt32.self)) >= offset + MemoryLayout<UnsafeRawPointer>.size else { return nil }
    return pointer.load(fromByteOffset: offset, as: Optional<StepFunction>.self)
  }

  func emit(_ json: String, origin: fh_origin) {
    guard let emitFunction else { return }
    json.withCString { emitFunction($0, origin) }
  }

  /// Emits a navigation step; does nothing when the host does not navigate.
  func emitStep(_ json: String) {
    guard let stepFunction else { return }
    json.withCString { stepFunction($0) }
  }

  func log(_ level: fh_log_level, _ message: String) {
    guard let logFunction else { return }
    message.withCString { logFunction(level, $0) }
  }

  func effectBegan() { effectBeganFunction?() }
  func effectEnded() { effectEndedFunction?() }
}
