import Foundation
import HostKit
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What signals do to `host run`.
///
/// At a terminal, Ctrl-C cancels the line being typed and pauses the feedback loops running on
/// screen (`:resume` goes on), or ends the wait (`:settle`) or the stuck plugin call under way;
/// twice within a second it leaves. SIGTERM and SIGHUP leave, and so does
/// SIGINT in a pipe. Leaving is the normal way out: the input loop ends, the journals are
/// committed, the final view is drawn where the run draws one, the temporary folder is removed.
/// SIGWINCH draws the prompt and the typed line again.
final class RunSignals: Sendable {
  private struct State {
    var lastInterrupt: ContinuousClock.Instant?
    var leaving: Int32?
  }

  private let state = Mutex(State())
  private let watch: Mutex<SignalWatch?> = Mutex(nil)
  private let runtime: SessionRuntime
  private let console: Console
  private let input: TerminalInput?
  /// The thread reading the input.
  private let main = pthread_self()
  /// Set while a redraw for a new size is queued.
  private let redrawPending = Atomic<Bool>(false)

  /// Watches for a run of `runtime` read by `input` (nil: a pipe), from the thread reading it.
  init(runtime: SessionRuntime, console: Console, input: TerminalInput?) {
    self.runtime = runtime
    self.console = console
    self.input = input
    let watch = SignalWatch { [weak self] signal in self?.handle(signal) }
    self.watch.withLock { $0 = watch }
  }

  /// The signal the run is leaving for, if any: the run exits with 128 + it.
  var leavingSignal: Int32? { state.withLock { $0.leaving } }

  /// Stops watching: the signals get their default actions back.
  func cancel() {
    watch.withLock {
      $0?.cancel()
      $0 = nil
    }
  }

  private func handle(_ signal: Int32) {
    switch signal {
    case SIGWINCH:
      input?.redraw()
      redrawAtNewSize()
    case SIGINT where input != nil:
      let now = ContinuousClock.now
      let twice = state.withLock { state -> Bool in
        defer { state.lastInterrupt = now }
        return state.lastInterrupt.map { now - $0 < .seconds(1) } ?? false
      }
      if twice {
        console.note("interrupted twice: leaving")
        leave(signal)
      } else if input?.interrupt() == true {
        // At the prompt the line is dropped, and a regulation running on screen pauses.
        for id in runtime.pauseFeedbackLoops() { console.notice(.feedbackPaused(feature: id)) }
      } else if let id = runtime.interruptStuckCall(grace: .milliseconds(200)) {
        console.note("interrupted \(id): its call did not return")
      } else {
        runtime.interruptWait()
      }
    default:
      leave(signal)
    }
  }

  /// Draws the shown views again at the terminal's new width, off the watcher thread (a store
  /// busy in a long call must not hold up Ctrl-C); a burst of resizes draws once or twice.
  private func redrawAtNewSize() {
    guard input != nil, !redrawPending.exchange(true, ordering: .acquiringAndReleasing) else { return }
    DispatchQueue.global().async { [weak self] in
      guard let self else { return }
      redrawPending.store(false, ordering: .releasing)
      runtime.redrawForNewSize()
    }
  }

  private func leave(_ signal: Int32) {
    let first = state.withLock { state -> Bool in
      defer { state.leaving = state.leaving ?? signal }
      return state.leaving == nil
    }
    let runtime = self.runtime
    guard first else {
      // Asked again while leaving: the way out is stuck; go now, leaving no temporary folder.
      Self.leaveNow(signal, runtime: runtime)
      return
    }
    runtime.interruptWait()
    if let input {
      input.end()
    } else {
      // A pipe's read blocks in the main thread: interrupt it, the input ends there.
      SignalWatch.interruptRead(of: main)
    }
    // A call that never returns keeps the main thread: give the normal way out a few seconds.
    let watchdog = Thread {
      Thread.sleep(forTimeInterval: 5)
      Self.leaveNow(signal, runtime: runtime)
    }
    watchdog.start()
  }

  private static func leaveNow(_ signal: Int32, runtime: SessionRuntime) {
    if let folder = runtime.temporaryFolder { try? FileManager.default.removeItem(atPath: folder) }
    _exit(128 + signal)
  }
}
