import Dispatch
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// At a terminal, Ctrl-C while the focused feature is stuck in a call ends that call: its worker
/// is killed and the feature restarted as after a crash. Ctrl-C with nothing stuck ends the host,
/// as it always did.
final class InterruptWatch {
  private let source: any DispatchSourceSignal

  /// Watches SIGINT for `runtime` (opened) until `cancel`.
  init(runtime: SessionRuntime, console: Console) {
    // The signal comes to the source instead of ending the process.
    signal(SIGINT, SIG_IGN)
    source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    source.setEventHandler { [weak runtime] in
      guard let runtime, let id = runtime.interruptStuckCall(grace: .milliseconds(200)) else {
        // Nothing stuck: end as Ctrl-C always did. To the process, not this thread, which (a
        // dispatch thread) blocks signals.
        signal(SIGINT, SIG_DFL)
        kill(getpid(), SIGINT)
        return
      }
      console.note("interrupted \(id): its call did not return")
    }
    source.resume()
  }

  /// Stops watching: Ctrl-C ends the host again.
  func cancel() {
    source.cancel()
    signal(SIGINT, SIG_DFL)
  }
}
