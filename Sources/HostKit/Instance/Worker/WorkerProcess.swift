import CEarlyWorker
import CWorkerRing
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A worker process before it serves a feature: the process, the host's end of its socket, the
/// memory the two share, and the sandbox's note pipe and private folder. Nothing in it names a
/// plugin: the worker learns which one from its first request, so a process started ahead of
/// time (`WorkerSpare`) serves any feature.
// @unchecked: made by one thread and handed whole to the one that uses it (a connection's
// start, or `discard`); never used by two.
struct WorkerProcess: @unchecked Sendable {
  let child: RunningChild
  let socket: Int32
  var channel: fh_channel
  /// The read end of the note pipe (-1: none), and the private folder (nil: none).
  let notes: Int32
  let scratch: WorkerScratch?
  /// What the plugin sees: the settings' environment with the private folder's homes. The worker
  /// makes it its whole environment at `create`, before it loads the plugin.
  let environment: [String: String]

  /// Starts `settings.workerExecutable` as a worker with a socketpair end on its descriptor 3 and the
  /// channel's memory on `WorkerConnection.channelDescriptor`. `environment` is what it sees.
  static func start(settings: WorkerSettings, environment: [String: String]) throws(HostError) -> WorkerProcess {
    var ends: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
      throw HostError(
        "cannot create a socket for a worker process: \(String(cString: strerror(errno)))",
        help: "close some files, or raise the limit on open files (ulimit -n)")
    }
    var channel = fh_channel()
    let memory = fh_channel_create(WorkerConnection.ringCapacity, &channel)
    guard memory >= 0 else {
      let reason = String(cString: strerror(errno))
      close(ends[0])
      close(ends[1])
      throw HostError(
        "cannot create the memory a worker process shares with the host: \(reason)",
        help: "free some memory, or run with --isolation none")
    }
    let (scratch, seen) = privateFolder(settings, environment: environment)
    var process = ChildProcess(
      settings.workerExecutable, arguments: WorkerLaunch.arguments(parent: getpid()), environment: seen)
    process.standardInput = .null
    process.standardOutput = .inherit
    process.standardError = .inherit
    // A sandboxed worker stopped for a refused call or its memory limit says so on the note pipe.
    let notes = settings.sandbox.enabled ? SandboxNotes.pipe() : nil
    process.passedDescriptors = [WorkerServer.socketDescriptor: ends[1], WorkerConnection.channelDescriptor: memory]
    if let notes { process.passedDescriptors[SandboxNotes.descriptor] = notes.write }
    let started = WorkerSpawner.shared.spawn(process)
    close(ends[1])
    close(memory)
    if let notes { close(notes.write) }
    switch started {
    case .success(let running):
      _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
      return WorkerProcess(
        child: running.child, socket: ends[0], channel: channel, notes: notes?.read ?? -1, scratch: scratch,
        environment: seen)
    case .failure(let failure):
      close(ends[0])
      fh_channel_unmap(&channel)
      if let notes { close(notes.read) }
      scratch?.remove()
      throw HostError(failure)
    }
  }

  /// The worker started as the host started (Sources/CEarlyWorker), for `settings` when it runs
  /// the executable they start; nil when there is none (or it was taken), and when it runs
  /// another, which is ended. Its private folder is made now, its environment comes with `create`.
  static func early(for settings: WorkerSettings, environment: [String: String]) -> WorkerProcess? {
    var early = fh_early_worker()
    guard fh_early_worker_take(&early) != 0 else { return nil }
    guard settings.workerExecutable == ProcessExecutable.path(of: early.pid),
      let exitNotice = RunningChild.watchExit(of: early.pid)
    else {
      fh_early_worker_discard(&early)
      return nil
    }
    let child = RunningChild(pid: early.pid, exitNotice: exitNotice, input: -1, pendingInput: nil, outputs: [])
    var notes = early.notes
    if !settings.sandbox.enabled {
      close(notes)
      notes = -1
    }
    let (scratch, seen) = privateFolder(settings, environment: environment)
    return WorkerProcess(
      child: child, socket: early.socket, channel: early.channel, notes: notes, scratch: scratch, environment: seen)
  }

  /// A sandboxed worker's private folder (nil: none, or it could not be made), and `environment`
  /// with its homes pointed there: what the plugin sees.
  private static func privateFolder(_ settings: WorkerSettings, environment: [String: String])
    -> (scratch: WorkerScratch?, environment: [String: String])
  {
    let scratch = settings.sandbox.enabled ? WorkerScratch.make() : nil
    return (scratch, scratch?.environment(environment) ?? environment)
  }

  /// Ends a worker that never served: closing the channel tells it to leave; it is reaped (killed
  /// after a second), and what it held is released.
  mutating func discard() {
    fh_channel_close(&channel)
    shutdown(socket, Int32(SHUT_RDWR))
    _ = child.finish(until: ContinuousClock.now + .seconds(1))
    close(socket)
    fh_channel_unmap(&channel)
    if notes >= 0 { close(notes) }
    scratch?.remove()
  }
}

/// One worker process started ahead of time (`InstanceFactory.prepare`), while the host reads
/// its settings and finds its plugins: the first worker asked for with the same settings takes
/// it, and its start-up (exec, the dynamic loader, the runtime) has overlapped the host's own.
/// It is the only one kept: a worker started later (a restart, a second feature) starts then.
final class WorkerSpare: Sendable {
  static let shared = WorkerSpare()

  /// What a worker's start depends on: a spare serves only a request with the same.
  private struct Key: Equatable {
    let executable: String
    let environment: [String: String]
    let sandboxed: Bool
  }

  private final class Pending: Sendable {
    let key: Key
    let ready = DispatchSemaphore(value: 0)
    let result = Mutex<Result<WorkerProcess, HostError>?>(nil)

    init(key: Key) { self.key = key }

    /// Waits for the start to end; nil when it failed (the caller starts one as usual and gets
    /// the error from there).
    func wait() -> WorkerProcess? {
      ready.wait()
      ready.signal()
      return result.withLock { result in
        defer { result = nil }
        return try? result?.get()
      }
    }
  }

  private let pending = Mutex<Pending?>(nil)

  /// Starts a spare for `settings`: on the main thread (the CLI's) right there, as the spawner
  /// thread, new, was put on the main thread's core and waited 1-2 ms to move to the idle one,
  /// and the first feature waits for this worker; elsewhere on the spawner thread.
  func prepare(_ settings: WorkerSettings) { prepare(settings, here: Thread.isMainThread) }

  /// Starts a spare for `settings`, replacing (and ending) one kept for other settings: before
  /// this returns when `here` (spawned from this thread when it lives as long as the host, else by
  /// the spawner thread while this one waits: `WorkerSpawner.spawn`), else in the background on
  /// the spawner thread. One kept for the same settings stays. With nothing kept, the worker
  /// started as the host started (Sources/CEarlyWorker) serves, when it runs the same executable.
  func prepare(_ settings: WorkerSettings, here: Bool) {
    let environment = settings.environment
    let key = Key(executable: settings.executable, environment: environment, sandboxed: settings.sandbox.enabled)
    let next = Pending(key: key)
    let (kept, previous) = pending.withLock { kept -> (Bool, Pending?) in
      if let spare = kept, spare.key == key { return (true, nil) }
      defer { kept = next }
      return (false, kept)
    }
    if kept { return }
    if previous == nil, let early = WorkerProcess.early(for: settings, environment: environment) {
      next.result.withLock { $0 = .success(early) }
      next.ready.signal()
      return
    }
    let start: @Sendable () -> Void = {
      let started = Result { () throws(HostError) in
        try WorkerProcess.start(settings: settings, environment: environment)
      }
      next.result.withLock { $0 = started }
      next.ready.signal()
      // Ended elsewhere: its reaping may wait a second, which the next start must not.
      if let previous { DispatchQueue.global().async { if var old = previous.wait() { old.discard() } } }
    }
    // The spawner thread lives as long as the host (a first job on the global queue waited a
    // millisecond or two for a thread of its pool).
    if here { start() } else { WorkerSpawner.shared.run(start) }
  }

  /// The spare, when one was prepared with these settings and is still running; nil otherwise.
  func take(_ settings: WorkerSettings, environment: [String: String]) -> WorkerProcess? {
    let key = Key(executable: settings.executable, environment: environment, sandboxed: settings.sandbox.enabled)
    let taken = pending.withLock { kept -> Pending? in
      guard let spare = kept, spare.key == key else { return nil }
      kept = nil
      return spare
    }
    guard var process = taken?.wait() else { return nil }
    // A spare that died waiting (killed, out of memory) would fail the first call; start anew.
    guard !process.child.hasExited else {
      process.discard()
      return nil
    }
    return process
  }

  /// The process id of the spare kept (waiting for its start), without taking it (tests).
  var preparedProcessID: pid_t? {
    guard let kept = pending.withLock({ $0 }) else { return nil }
    kept.ready.wait()
    kept.ready.signal()
    return kept.result.withLock { try? $0?.get().child.pid }
  }

  /// The process id of the spare kept when its start has ended, without waiting for it (tests).
  var startedProcessID: pid_t? {
    pending.withLock { $0 }?.result.withLock { try? $0?.get().child.pid }
  }

  /// Ends the spare if nobody took it (the run ended before it started a feature in a worker),
  /// and the worker started as the host started if nobody took that either.
  func discard() {
    var early = fh_early_worker()
    if fh_early_worker_take(&early) != 0 { fh_early_worker_discard(&early) }
    let taken = pending.withLock { kept in
      defer { kept = nil }
      return kept
    }
    if var process = taken?.wait() { process.discard() }
  }
}

/// Whether the host is ending: `InstanceFactory.workersEndWithHost`.
enum WorkerExit {
  static let endsWithHost = Atomic<Bool>(false)
}
