#if canImport(Glibc)
  import Glibc
#endif

/// glibc functions that Swift's Glibc module does not declare (their header wants _GNU_SOURCE),
/// looked up once by name.
package enum GNUExtensions {
  package typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
  package typealias AddChdir =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

  /// pipe2(2), glibc 2.9 and later: a pipe made close-on-exec at once, so a child another
  /// thread spawns meanwhile never inherits it.
  package static let pipe2: Pipe2? = function("pipe2")

  /// posix_spawn_file_actions_addchdir_np, glibc 2.29 and later.
  package static let addChdir: AddChdir? = function("posix_spawn_file_actions_addchdir_np")

  package typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

  /// posix_spawn_file_actions_addclosefrom_np, glibc 2.34 and later.
  package static let addCloseFrom: AddCloseFrom? = function("posix_spawn_file_actions_addclosefrom_np")

  package typealias Mallopt = @convention(c) (Int32, Int32) -> Int32

  /// mallopt(3), declared in malloc.h, which Swift's Glibc module does not include.
  package static let mallopt: Mallopt? = function("mallopt")

  /// mallopt's parameter for the size from which allocations get pages of their own.
  package static let mmapThreshold: Int32 = -3

  package typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32

  /// prctl(2), which Swift cannot import (it is variadic): every argument given as an integer.
  package static let prctl: Prctl? = function("prctl")

  /// Asks the kernel to send `signal` to this process when the thread that started it ends
  /// (PR_SET_PDEATHSIG). False when it could not.
  package static func killWhenParentEnds(signal: Int32) -> Bool {
    guard let prctl else { return false }
    return prctl(1, UInt(signal), 0, 0, 0) == 0
  }

  /// A close-on-exec pipe: (read end, write end), or errno's text.
  package static func closeOnExecPipe() -> Result<(read: Int32, write: Int32), PipeFailure> {
    guard let pipe2 else { return .failure(PipeFailure(reason: "this C library has no pipe2")) }
    var ends: [Int32] = [0, 0]
    guard pipe2(&ends, O_CLOEXEC) == 0 else { return .failure(PipeFailure(reason: String(cString: strerror(errno)))) }
    return .success((ends[0], ends[1]))
  }

  /// Why a pipe could not be made.
  package struct PipeFailure: Error {
    package let reason: String
  }

  private static func function<T>(_ name: String) -> T? {
    // RTLD_DEFAULT is the null handle in glibc.
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
    return unsafeBitCast(symbol, to: T.self)
  }
}
