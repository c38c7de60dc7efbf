#if canImport(Glibc)
  import Glibc
#endif

/// A value behind a pthread mutex, for state that threads hand over often. ThreadSanitizer sees a
/// pthread mutex change hands; a contended `Mutex` is handed over by the kernel (a futex), out of
/// its sight, and it reports races that are not there. (Here because FeatureKit, in every plugin,
/// and HostKit, in the host, both build on this module.)
// @unchecked: `value` is touched under `mutex` only.
public final class Locked<Value>: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  /// Behind a pointer: the mutex already makes access exclusive, and a stored property would add
  /// the runtime's exclusivity check (a thread-local look-up) to every `withLock`.
  private let value: UnsafeMutablePointer<Value>

  public init(_ value: Value) {
    self.value = .allocate(capacity: 1)
    self.value.initialize(to: value)
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    value.deinitialize(count: 1)
    value.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value.pointee)
  }

  /// `withLock`, unless another thread holds the lock: then nil at once, `body` not called.
  public func withLockIfAvailable<Result>(_ body: (inout Value) -> Result) -> Result? {
    guard pthread_mutex_trylock(mutex) == 0 else { return nil }
    defer { pthread_mutex_unlock(mutex) }
    return body(&value.pointee)
  }
}
