#if canImport(Glibc)
  import Glibc
#endif

/// A value behind a pthread mutex, for state that threads hand over often. ThreadSanitizer sees a
/// pthread mutex change hands; a contended `Mutex` is handed over by the kernel (a futex), out of
/// its sight, and it reports races that are not there.
// @unchecked: `value` is touched under `mutex` only.
final class Locked<Value>: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private var value: Value

  init(_ value: Value) {
    self.value = value
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
