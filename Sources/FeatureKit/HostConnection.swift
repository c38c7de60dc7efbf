import FeatureABI

/// The host callbacks an instance was created with, read once within the host's `struct_size`.
///
/// The pointers are bound to this instance by the host (libffi closures), so they carry no context.
/// Thread-safe: the host documents every callback as callable from any thread.
final class HostConnection: @unchecked Sendable {
  private let emitFunction: (@convention(c) (UnsafePointer<CChar>?, fh_origin) -> Void)?
  private let logFunction: (@convention(c) (fh_log_level, UnsafePointer<CChar>?) -> Void)?
  private let effectBeganFunction: (@convention(c) () -> Void)?
  private let effectEndedFunction: (@convention(c) () -> Void)?

  init(_ host: UnsafePointer<fh_host>) {
    let size = Int(host.pointee.struct_size)
    func available(_ keyPath: PartialKeyPath<fh_host>) -> Bool {
      guard let offset = MemoryLayout<fh_host>.offset(of: keyPath) else { return false }
      return offset + MemoryLayout<UnsafeRawPointer>.size <= size
    }
    emitFunction = available(\fh_host.emit) ? host.pointee.emit : nil
    logFunction = available(\fh_host.log) ? host.pointee.log : nil
    effectBeganFunction = available(\fh_host.effect_began) ? host.pointee.effect_began : nil
    effectEndedFunction = available(\fh_host.effect_ended) ? host.pointee.effect_ended : nil
  }

  func emit(_ json: String, origin: fh_origin) {
    guard let emitFunction else { return }
    json.withCString { emitFunction($0, origin) }
  }

  func log(_ level: fh_log_level, _ message: String) {
    guard let logFunction else { return }
    message.withCString { logFunction(level, $0) }
  }

  func effectBegan() { effectBeganFunction?() }
  func effectEnded() { effectEndedFunction?() }
}
