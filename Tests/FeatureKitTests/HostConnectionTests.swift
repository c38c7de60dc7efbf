import FeatureABI
import Synchronization
import Testing

@testable import FeatureKit

/// The C callbacks a hand-made `fh_host` offers; they count their calls, since a C function
/// pointer carries no context.
enum HandMadeHost {
  static let emits = Atomic<Int>(0)
  static let lookups = Atomic<Int>(0)
  /// Whether the clock handed out declares its `cancel`.
  static let clockHasCancel = Atomic<Bool>(true)

  /// The clock extension get_extension hands out; its struct_size is set per call.
  // nonisolated(unsafe): written only by get_extension, and the suite runs serialized.
  nonisolated(unsafe) static let clock: UnsafeMutablePointer<fh_host_clock> = {
    let clock = UnsafeMutablePointer<fh_host_clock>.allocate(capacity: 1)
    clock.initialize(to: fh_host_clock())
    clock.pointee.schedule = { _, _, _ in 1 }
    clock.pointee.cancel = { _ in }
    return clock
  }()

  static func offset<T>(_ field: PartialKeyPath<T>) -> Int { MemoryLayout<T>.offset(of: field) ?? -1 }

  /// An `fh_host` with every callback set, declaring `size` bytes.
  static func host(size: Int) -> fh_host {
    var host = fh_host()
    host.struct_size = UInt32(size)
    host.abi_major = FH_ABI_MAJOR
    host.emit = { _, _ in HandMadeHost.emits.add(1, ordering: .relaxed) }
    host.get_extension = { id in
      HandMadeHost.lookups.add(1, ordering: .relaxed)
      guard let id, String(cString: id) == FH_EXT_CLOCK else { return nil }
      HandMadeHost.clock.pointee.struct_size = UInt32(
        HandMadeHost.clockHasCancel.load(ordering: .relaxed)
          ? MemoryLayout<fh_host_clock>.size : HandMadeHost.offset(\fh_host_clock.cancel))
      return UnsafeRawPointer(HandMadeHost.clock)
    }
    return host
  }

  static func reset(clockHasCancel: Bool = true) {
    emits.store(0, ordering: .relaxed)
    lookups.store(0, ordering: .relaxed)
    Self.clockHasCancel.store(clockHasCancel, ordering: .relaxed)
  }
}

/// FeatureKit reads the structs a host hands it within their struct_size.
@Suite("Host connection", .serialized)
struct HostConnectionTests {
  @Test func aHostOfThisSizeOffersEveryCallbackAndItsExtensions() {
    HandMadeHost.reset()
    var host = HandMadeHost.host(size: MemoryLayout<fh_host>.size)
    let connection = withUnsafePointer(to: &host) { HostConnection($0) }
    connection.emit(#"{"type":"x"}"#, origin: fh_origin(FH_ORIGIN_EFFECT))
    #expect(HandMadeHost.emits.load(ordering: .relaxed) == 1)
    #expect(HandMadeHost.lookups.load(ordering: .relaxed) == 2)
    #expect(connection.keepsTime)
  }

  @Test func aShorterHostHasNoFieldsPastItsSize() {
    // given a host whose struct_size ends before get_extension (set in memory beyond it)
    HandMadeHost.reset()
    var host = HandMadeHost.host(size: HandMadeHost.offset(\fh_host.get_extension))
    // when a plugin connects to it
    let connection = withUnsafePointer(to: &host) { HostConnection($0) }
    // then get_extension is absent: never called, so no extension and no clock
    #expect(HandMadeHost.lookups.load(ordering: .relaxed) == 0)
    #expect(!connection.keepsTime)
    connection.emitStep(#"{"step":"go"}"#)
    // and the callbacks within its size still work
    connection.emit(#"{"type":"x"}"#, origin: fh_origin(FH_ORIGIN_EFFECT))
    #expect(HandMadeHost.emits.load(ordering: .relaxed) == 1)
  }

  @Test func aHostEndingBeforeEmitDropsEmitsInsteadOfCallingPastIt() {
    HandMadeHost.reset()
    var host = HandMadeHost.host(size: HandMadeHost.offset(\fh_host.emit))
    let connection = withUnsafePointer(to: &host) { HostConnection($0) }
    connection.emit(#"{"type":"x"}"#, origin: fh_origin(FH_ORIGIN_EFFECT))
    #expect(HandMadeHost.emits.load(ordering: .relaxed) == 0)
  }

  @Test func aShorterClockWithoutCancelIsNoClock() {
    // given a host whose clock extension ends before cancel
    HandMadeHost.reset(clockHasCancel: false)
    var host = HandMadeHost.host(size: MemoryLayout<fh_host>.size)
    // when a plugin connects to it
    let connection = withUnsafePointer(to: &host) { HostConnection($0) }
    // then it keeps time itself: a clock it cannot cancel is not used
    #expect(HandMadeHost.lookups.load(ordering: .relaxed) == 2)
    #expect(!connection.keepsTime)
  }
}
