import FeatureJSON
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Starts worker processes from one thread that lives as long as the host: a worker asks to be
/// killed when the thread that started it ends (PR_SET_PDEATHSIG follows the thread, not the
/// process), so a worker started from a short-lived thread would die with that thread.
final class WorkerSpawner: Sendable {
  static let shared = WorkerSpawner()

  /// A started child, handed from the spawner thread to the caller.
  // @unchecked: made on the spawner thread and used only by the caller after the handoff.
  struct Started: @unchecked Sendable {
    let child: RunningChild
  }

  /// Locked, not Mutex: workers are started from many threads, and ThreadSanitizer
  /// (Tests/Sanitizers/run thread) does not see a Mutex change hands.
  private let jobs = Locked<[@Sendable () -> Void]>([])
  private let waiting = DispatchSemaphore(value: 0)
  /// The spawner thread's id, once it runs (0 before).
  private let threadID = Atomic<UInt>(0)

  private init() {
    let thread = Thread { [self] in
      threadID.store(UInt(pthread_self()), ordering: .releasing)
      while true {
        waiting.wait()
        let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        job?()
      }
    }
    thread.name = "featurehost.worker-spawner"
    thread.start()
  }

  /// Runs `job` on the spawner thread after the jobs queued before it, without waiting for it.
  /// A job that starts a worker starts it there directly (`spawn` sees the thread).
  func run(_ job: @escaping @Sendable () -> Void) {
    jobs.withLock { $0.append(job) }
    waiting.signal()
  }

  /// Whether the calling thread lives as long as the host: the spawner thread or the main
  /// thread (whose end is the process's).
  var isLongLived: Bool {
    if Thread.isMainThread { return true }
    let id = threadID.load(ordering: .acquiring)
    return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
  }

  /// Starts `process` on the spawner thread and waits for it (at once when called there or on
  /// the main thread).
  func spawn(_ process: ChildProcess) -> Result<Started, ChildProcessFailure> {
    if isLongLived { return Self.start(process) }
    let done = DispatchSemaphore(value: 0)
    final class Slot: Sendable { let result = Locked<Result<Started, ChildProcessFailure>?>(nil) }
    let slot = Slot()
    run {
      slot.result.withLock { $0 = Self.start(process) }
      done.signal()
    }
    done.wait()
    return slot.result.withLock { $0 }
      ?? .failure(.cannotStart(executable: process.executable, reason: "the spawner did not answer"))
  }

  /// Starts `process` on the calling thread (the spawner's).
  private static func start(_ process: ChildProcess) -> Result<Started, ChildProcessFailure> {
    do throws(ChildProcessFailure) {
      return .success(Started(child: try process.start()))
    } catch {
      return .failure(error)
    }
  }
}
