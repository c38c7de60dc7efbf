import CFFI
import FeatureABI
import FeatureJSON
import Synchronization

/// The `fh_host` an instance gets: plain C function pointers bound to that one instance with libffi
/// closures (`ffi_closure_alloc` + `ffi_prep_closure_loc`), so C authors need no context argument
/// and two instances of one plugin never mix.
///
/// Free it only after the instance was stopped and destroyed: the plugin may call until then.
/// Owned by its instance, which frees it after `destroy`.
package final class CallbackBinding {
  /// Holds the target weakly; the closures' user data points here.
  private final class Box {
    weak var target: (any InstanceCallbackTarget)?
    /// This instance's `fh.navigation/1`, handed out by get_extension.
    var navigation: UnsafeMutablePointer<fh_host_navigation>?
    /// This instance's `fh.clock/1`.
    var clock: UnsafeMutablePointer<fh_host_clock>?
    init(_ target: any InstanceCallbackTarget) { self.target = target }
  }

  package let host: UnsafeMutablePointer<fh_host>
  private let navigation: UnsafeMutablePointer<fh_host_navigation>
  private let clock: UnsafeMutablePointer<fh_host_clock>
  private let closures: ClosureList
  private let box: Unmanaged<Box>

  /// Binds the callbacks of one instance to `target`. `ledger` (tests only) counts this binding's
  /// closures and can make one of them fail, as an exhausted libffi would.
  package init(target: any InstanceCallbackTarget, hostVersion: UnsafePointer<CChar>, ledger: ClosureLedger? = nil)
    throws(HostError)
  {
    // Everything is built in locals and assigned last: a throw frees what was made here, once,
    // and `deinit` (which runs only for a whole object) frees the rest.
    let box = Unmanaged.passRetained(Box(target))
    var closures = ClosureList(ledger: ledger)
    let host = UnsafeMutablePointer<fh_host>.allocate(capacity: 1)
    let navigation = UnsafeMutablePointer<fh_host_navigation>.allocate(capacity: 1)
    let clock = UnsafeMutablePointer<fh_host_clock>.allocate(capacity: 1)
    do {
      try Self.build(
        box: box, closures: &closures, host: host, navigation: navigation, clock: clock, hostVersion: hostVersion)
    } catch {
      closures.free()
      host.deallocate()
      navigation.deallocate()
      clock.deallocate()
      box.release()
      throw error
    }
    box.takeUnretainedValue().navigation = navigation
    box.takeUnretainedValue().clock = clock
    self.box = box
    self.closures = closures
    self.host = host
    self.navigation = navigation
    self.clock = clock
  }

  /// Fills `host`, `navigation` and `clock` with closures bound to `box`.
  private static func build(
    box: Unmanaged<Box>, closures: inout ClosureList, host: UnsafeMutablePointer<fh_host>,
    navigation: UnsafeMutablePointer<fh_host_navigation>, clock: UnsafeMutablePointer<fh_host_clock>,
    hostVersion: UnsafePointer<CChar>
  ) throws(HostError) {
    let interfaces = CallInterfaces.shared
    let user = box.toOpaque()
    let emit = try closures.bind(interfaces.pointerInt32, user) { _, _, args, user in
      guard let args, let user, let json = args[0]?.load(as: UnsafePointer<CChar>?.self) else { return }
      let origin = args[1]?.load(as: Int32.self) ?? 0
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().target?.instanceEmitted(
        String(cString: json), origin: EmitOrigin(origin))
    }
    let log = try closures.bind(interfaces.int32Pointer, user) { _, _, args, user in
      guard let args, let user, let message = args[1]?.load(as: UnsafePointer<CChar>?.self) else { return }
      let level = args[0]?.load(as: Int32.self) ?? 0
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().target?.instanceLogged(
        level: LogLevel(level), message: String(cString: message))
    }
    let began = try closures.bind(interfaces.void, user) { _, _, _, user in
      guard let user else { return }
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().target?.instanceEffectBegan()
    }
    let ended = try closures.bind(interfaces.void, user) { _, _, _, user in
      guard let user else { return }
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().target?.instanceEffectEnded()
    }
    let emitStep = try closures.bind(interfaces.pointer, user) { _, _, args, user in
      guard let args, let user, let json = args[0]?.load(as: UnsafePointer<CChar>?.self) else { return }
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().target?.instanceEmittedStep(String(cString: json))
    }
    let schedule = try closures.bind(interfaces.scheduleTimer, user) { _, result, args, user in
      var id: UInt64 = 0
      if let args, let user, let actions = args[1]?.load(as: UnsafePointer<CChar>?.self) {
        let delay = args[0]?.load(as: UInt64.self) ?? 0
        let origin = args[2]?.load(as: Int32.self) ?? 0
        id =
          Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().target?.instanceScheduled(
            after: delay, actions: String(cString: actions), origin: EmitOrigin(origin)) ?? 0
      }
      result?.storeBytes(of: id, as: UInt64.self)
    }
    let cancel = try closures.bind(interfaces.uint64, user) { _, _, args, user in
      guard let args, let user, let id = args[0]?.load(as: UInt64.self) else { return }
      Unmanaged<Box>.fromOpaque(user).takeUnretainedValue().target?.instanceCancelledTimer(id)
    }
    // The host extensions: navigation and clock; any other id answers NULL.
    let getExtension = try closures.bind(interfaces.pointerReturningPointer, user) { _, result, args, user in
      var answer: UnsafeRawPointer?
      if let user, let id = args?[0]?.load(as: UnsafePointer<CChar>?.self) {
        let box = Unmanaged<Box>.fromOpaque(user).takeUnretainedValue()
        switch String(cString: id) {
        case FH_EXT_NAVIGATION: answer = box.navigation.map { UnsafeRawPointer($0) }
        case FH_EXT_CLOCK: answer = box.clock.map { UnsafeRawPointer($0) }
        default: break
        }
      }
      result?.storeBytes(of: answer, as: UnsafeRawPointer?.self)
    }
    navigation.initialize(
      to: fh_host_navigation(
        struct_size: UInt32(MemoryLayout<fh_host_navigation>.size), reserved: 0,
        emit_step: unsafeBitCast(emitStep, to: (@convention(c) (UnsafePointer<CChar>?) -> Void).self)))
    clock.initialize(
      to: fh_host_clock(
        struct_size: UInt32(MemoryLayout<fh_host_clock>.size), reserved: 0,
        schedule: unsafeBitCast(
          schedule, to: (@convention(c) (UInt64, UnsafePointer<CChar>?, fh_origin) -> UInt64).self),
        cancel: unsafeBitCast(cancel, to: (@convention(c) (UInt64) -> Void).self)))
    host.initialize(
      to: fh_host(
        struct_size: UInt32(MemoryLayout<fh_host>.size),
        abi_major: FH_ABI_MAJOR,
        abi_minor: FH_ABI_MINOR,
        reserved: 0,
        host_version: hostVersion,
        emit: unsafeBitCast(emit, to: (@convention(c) (UnsafePointer<CChar>?, fh_origin) -> Void).self),
        log: unsafeBitCast(log, to: (@convention(c) (fh_log_level, UnsafePointer<CChar>?) -> Void).self),
        effect_began: unsafeBitCast(began, to: (@convention(c) () -> Void).self),
        effect_ended: unsafeBitCast(ended, to: (@convention(c) () -> Void).self),
        get_extension: unsafeBitCast(
          getExtension, to: (@convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?).self)
      ))
  }

  /// Bindings of destroyed instances, newest last; the oldest is freed when one more arrives.
  /// Locked, not Mutex: store threads ending side by side retire theirs at once, and
  /// ThreadSanitizer does not see a contended Mutex change hands (see Locked).
  private static let quarantine = Locked<[Handover]>([])

  /// A destroyed instance's binding on its way into the quarantine.
  // @unchecked: handed over once by an instance that never touches it again.
  private struct Handover: @unchecked Sendable { let binding: CallbackBinding }
  /// How many destroyed instances' callbacks stay callable (and dropped or counted as late).
  package static let quarantined = 64

  /// Takes the binding of a destroyed instance. Its closures stay valid, still reaching their
  /// target (a store counts what arrives after stop as late), until `quarantined` more bindings
  /// were retired, so the memory of a closure a misbehaving plugin still calls is not handed to
  /// a new instance at once.
  package static func retire(_ binding: CallbackBinding) {
    let handover = Handover(binding: binding)
    quarantine.withLock { retired in
      retired.append(handover)
      // Freeing only releases memory: nothing calls back from a deinit.
      if retired.count > quarantined { retired.removeFirst() }
    }
  }

  deinit {
    closures.free()
    host.deinitialize(count: 1)
    host.deallocate()
    navigation.deinitialize(count: 1)
    navigation.deallocate()
    clock.deinitialize(count: 1)
    clock.deallocate()
    box.release()
  }

  private typealias Handler =
    @convention(c) (
      UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
      UnsafeMutableRawPointer?
    ) -> Void

}

/// The libffi closures of one binding; freed once, by whoever ends up owning the list.
private struct ClosureList {
  typealias Handler =
    @convention(c) (
      UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
      UnsafeMutableRawPointer?
    ) -> Void

  private var closures: [UnsafeMutableRawPointer] = []
  private let ledger: ClosureLedger?

  init(ledger: ClosureLedger?) { self.ledger = ledger }

  /// Allocates one closure and returns its executable address.
  mutating func bind(
    _ cif: UnsafeMutablePointer<ffi_cif>, _ user: UnsafeMutableRawPointer, _ handler: Handler
  ) throws(HostError) -> UnsafeMutableRawPointer {
    if let ledger, closures.count + 1 == ledger.failingAt {
      throw HostError("libffi could not allocate a callback closure (injected failure)")
    }
    var code: UnsafeMutableRawPointer?
    guard let closure = ffi_closure_alloc(MemoryLayout<ffi_closure>.size, &code), let code else {
      throw HostError("libffi could not allocate a callback closure (out of memory?)")
    }
    closures.append(closure)
    ledger?.allocated.add(1, ordering: .relaxed)
    let status = ffi_prep_closure_loc(
      closure.assumingMemoryBound(to: ffi_closure.self), cif, handler, user, code)
    guard status == FFI_OK else {
      throw HostError("libffi could not prepare a callback closure (status \(status.rawValue))")
    }
    return code
  }

  func free() {
    for closure in closures { ffi_closure_free(closure) }
    ledger?.freed.add(closures.count, ordering: .relaxed)
  }
}

/// Counts one binding's closures, for tests of its failure path.
package final class ClosureLedger: Sendable {
  /// The closure number (from 1) whose bind fails; nil for none.
  package let failingAt: Int?
  package let allocated = Atomic<Int>(0)
  package let freed = Atomic<Int>(0)

  package init(failingAt: Int?) { self.failingAt = failingAt }
}

extension EmitOrigin {
  package init(_ origin: fh_origin) { self = origin == fh_origin(FH_ORIGIN_FEEDBACK) ? .feedback : .effect }
}

extension LogLevel {
  /// Levels beyond the header's count as errors.
  package init(_ level: fh_log_level) { self = LogLevel(rawValue: Int(level)) ?? (level < 0 ? .debug : .error) }
}

/// The call interfaces of the callbacks, prepared once and shared by every instance.
// @unchecked: immutable after init; libffi only reads a prepared cif.
private final class CallInterfaces: @unchecked Sendable {
  static let shared = CallInterfaces()

  /// void (const char *, int32_t): emit
  let pointerInt32: UnsafeMutablePointer<ffi_cif>
  /// void (int32_t, const char *): log
  let int32Pointer: UnsafeMutablePointer<ffi_cif>
  /// void (void): effect_began, effect_ended
  let void: UnsafeMutablePointer<ffi_cif>
  /// void (const char *): emit_step
  let pointer: UnsafeMutablePointer<ffi_cif>
  /// uint64_t (uint64_t, const char *, int32_t): schedule
  let scheduleTimer: UnsafeMutablePointer<ffi_cif>
  /// void (uint64_t): cancel
  let uint64: UnsafeMutablePointer<ffi_cif>
  /// const void *(const char *): get_extension
  let pointerReturningPointer: UnsafeMutablePointer<ffi_cif>

  private init() {
    pointerInt32 = Self.prepare(returning: fh_ffi_type_void(), [fh_ffi_type_pointer(), fh_ffi_type_sint32()])
    int32Pointer = Self.prepare(returning: fh_ffi_type_void(), [fh_ffi_type_sint32(), fh_ffi_type_pointer()])
    void = Self.prepare(returning: fh_ffi_type_void(), [])
    pointer = Self.prepare(returning: fh_ffi_type_void(), [fh_ffi_type_pointer()])
    scheduleTimer = Self.prepare(
      returning: fh_ffi_type_uint64(), [fh_ffi_type_uint64(), fh_ffi_type_pointer(), fh_ffi_type_sint32()])
    uint64 = Self.prepare(returning: fh_ffi_type_void(), [fh_ffi_type_uint64()])
    pointerReturningPointer = Self.prepare(returning: fh_ffi_type_pointer(), [fh_ffi_type_pointer()])
  }

  private static func prepare(
    returning result: UnsafeMutablePointer<ffi_type>?, _ arguments: [UnsafeMutablePointer<ffi_type>?]
  ) -> UnsafeMutablePointer<ffi_cif> {
    let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
    let types = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: max(1, arguments.count))
    for (index, type) in arguments.enumerated() { types[index] = type }
    let status = ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(arguments.count), result, types)
    precondition(status == FFI_OK, "ffi_prep_cif failed for a fixed, valid signature")
    return cif
  }
}

extension CallbackBinding {
  /// Has libffi look at the system once (its first closure reads /proc/self/status and
  /// /proc/mounts), so a worker does it before its sandbox, where each open would go through
  /// the sandbox's supervisor.
  package static func prepareLibffi() {
    var code: UnsafeMutableRawPointer?
    if let closure = ffi_closure_alloc(MemoryLayout<ffi_closure>.size, &code) { ffi_closure_free(closure) }
  }
}
