import FeatureABI

/// The host callbacks an instance was created with, read once within the host's `struct_size`.
///
/// The pointers are bound to this instance by the host (libffi closures), so they carry no context.
/// Thread-safe: the host documents every callback as callable from any thread.
// @unchecked: immutable after init; the host's callbacks are thread-safe by the ABI.
final class HostConnection: @unchecked Sendable {
  private typealias EmitFunction = @convention(c) (UnsafePointer<CChar>?, fh_origin) -> Void
  private typealias LogFunction = @convention(c) (fh_log_level, UnsafePointer<CChar>?) -> Void
  private typealias SignalFunction = @convention(c) () -> Void
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
    // Every host struct is read through HostStruct: a field an older host did not declare is nil.
    let host = HostStruct(reading: host, empty: fh_host())?.value
    emitFunction = host?.emit
    logFunction = host?.log
    effectBeganFunction = host?.effect_began
    effectEndedFunction = host?.effect_ended
    let getExtension = host?.get_extension
    func lookup(_ id: String) -> UnsafeRawPointer? { getExtension.flatMap { get in id.withCString { get($0) } } }
    stepFunction = HostStruct(reading: lookup(FH_EXT_NAVIGATION), empty: fh_host_navigation())?.value.emit_step
    let clock = HostStruct(reading: lookup(FH_EXT_CLOCK), empty: fh_host_clock())?.value
    scheduleFunction = clock?.schedule
    cancelFunction = clock?.cancel
  }

  /// Whether the host offers timers (`fh.clock/1`).
  var keepsTime: Bool { scheduleFunction != nil && cancelFunction != nil }

  /// Schedules `json` (an action or an array of actions) on the host's clock; 0 when refused.
  func schedule(after nanoseconds: UInt64, _ json: String, origin: fh_origin) -> UInt64 {
    guard let scheduleFunction else { return 0 }
    return json.withCString { scheduleFunction(nanoseconds, $0, origin) }
  }

  func cancelTimer(_ id: UInt64) { cancelFunction?(id) }

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
