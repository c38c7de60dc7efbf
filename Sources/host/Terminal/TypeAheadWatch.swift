import FeatureJSON
import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// What is typed at the terminal while a line is being handled (a call that may be stuck in a
/// plugin): `:quit`, or Ctrl-D, on a call that does not return ends the run at once: the call is
/// interrupted (its worker killed), waits end, and the lines typed before it are dropped. Any
/// other whole line, and a quit when nothing is stuck, is kept for the next read. Between reads
/// the terminal is in its own line mode, so a read here gets whole lines (or end of input,
/// Ctrl-D).
final class TypeAheadWatch: Sendable {
  private struct State {
    var typed: [UInt8] = []
    var quit = false
  }

  private let state = Locked(State())
  /// Tells the watcher to end.
  private let stopPipe: WakePipe
  private let done = DispatchSemaphore(value: 0)
  /// How long a call may go on after `:quit` before it counts as stuck.
  static let stuckAfter: Duration = .milliseconds(300)

  /// Starts watching; `isQuit` says whether a line typed is `:quit`. Nil when no pipe can be made.
  init?(runtime: SessionRuntime, console: Console, isQuit: @escaping @Sendable (String) -> Bool) {
    guard let stopPipe = WakePipe() else { return nil }
    self.stopPipe = stopPipe
    let (state, done, stuckAfter) = (self.state, self.done, Self.stuckAfter)
    // The thread holds what it works with, not this object.
    let thread = Thread {
      defer { done.signal() }
      while true {
        var watched = [
          pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
          pollfd(fd: stopPipe.readEnd, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&watched, 2, -1) < 0 {
          if errno == EINTR { continue }
          return
        }
        if watched[1].revents != 0 { return }
        guard watched[0].revents != 0 else { continue }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        // Ctrl-D on an empty line (or the terminal gone) reads as nothing: kept as the key.
        let typed = count > 0 ? Array(buffer[0..<count]) : [4]
        let quits = count <= 0 || isQuit(String(decoding: typed, as: UTF8.self).trimmingWhitespace())
        guard quits else {
          state.withLock { $0.typed += typed }
          continue
        }
        runtime.interruptWait()
        // Nothing more is shown of the line under way; the leaving note says why.
        console.mute()
        if let id = runtime.abandonStuckCall(grace: stuckAfter) {
          state.withLock { $0.quit = true }
          console.leavingNote(Self.leaving(id))
        } else {
          // Nothing is stuck: the line ends the way it always did, and the quit is read next.
          console.unmute()
          state.withLock { $0.typed += typed }
        }
        return
      }
    }
    thread.name = "type-ahead"
    thread.start()
  }

  /// The note for leaving while `feature`'s call had not returned.
  static func leaving(_ feature: String) -> String {
    "leaving: \(feature)'s call had not returned; it was ended"
  }

  /// Stops watching (waiting for the watcher to end); what was typed meanwhile, unless `:quit`
  /// or Ctrl-D ended the run (`quit`), when it is dropped.
  func stop() -> (quit: Bool, typed: [UInt8]) {
    stopPipe.signal()
    done.wait()
    return state.withLock { state in state.quit ? (true, []) : (false, state.typed) }
  }
}
