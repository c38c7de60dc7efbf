import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A job's result handed from the store thread to the thread waiting in `Store.perform`. The
/// waiter spins a moment before it sleeps: most jobs (a probe, `:state`, a travel) end within
/// microseconds, sooner than a sleeping thread is woken.
// @unchecked: `value` is written once, before `finished` is set (releasing), and read after it
// is seen set (acquiring).
final class JobOutcome<T>: @unchecked Sendable {
  private var value: T?
  private let finished = Atomic<Bool>(false)
  private let done = DispatchSemaphore(value: 0)
  /// How long a waiter spins before it sleeps, unless it says otherwise (`Store.perform`).
  static var spin: Duration { .microseconds(50) }

  /// On the store thread: the job's result.
  func finish(_ result: T) {
    value = result
    finished.store(true, ordering: .releasing)
    done.signal()
  }

  /// The result, once the job finished; spinning up to `spin` before it sleeps. Meanwhile,
  /// `meanwhile` is called at each turn while it says it did some work: the spin starts again
  /// after it.
  func wait(spinning spin: Duration, meanwhile: (() -> Bool)? = nil) -> T {
    let clock = ContinuousClock()
    var deadline = clock.now + spin
    var turns = 0
    var working = meanwhile != nil
    while !finished.load(ordering: .acquiring) {
      if working {
        working = meanwhile?() ?? false
        if working { continue }
        deadline = clock.now + spin
      }
      turns += 1
      // Past the first turns the store thread may be waiting for this CPU (two cores, a busy
      // machine): each turn then yields it.
      if turns > 64 { sched_yield() }
      // The clock every 64 turns; past the deadline, sleep until the job signals. (Yielding,
      // 64 turns may outlast the limit; ending it sooner slowed exploring: BENCHMARKS.md.)
      if turns & 63 == 0, clock.now >= deadline {
        done.wait()
        break
      }
    }
    guard finished.load(ordering: .acquiring), let value else {
      fatalError("a job always sets its result before it is seen finished")
    }
    return value
  }
}
