import Foundation
import HostKit

/// The progress line of a wait at a terminal (`:settle`, a slow plugin call): nothing for half a
/// second, then a spinner, what is awaited, the seconds waited and what Ctrl-C does, drawn ten
/// times a second on the line under the output and erased when the wait ends. Output that comes
/// meanwhile is printed above it (`Console`). Never in a pipe: the caller makes none there.
final class WaitProgress: Sendable {
  private static let frames = LineEditor.Prompt.frames
  private let stop = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)

  /// Starts timing a wait; `label` says what is awaited, asked at each frame (so it may count
  /// what is still running). Call `end` once the wait is over.
  init(console: Console, label: @escaping @Sendable () -> String) {
    let stop = self.stop
    let done = self.done
    // The thread holds what it draws with, not this object.
    let thread = Thread {
      defer { done.signal() }
      let start = ContinuousClock.now
      guard stop.wait(timeout: .now() + .milliseconds(500)) == .timedOut else { return }
      var frame = 0
      repeat {
        let seconds = (ContinuousClock.now - start).seconds
        let tenths = Int(seconds * 10)
        console.showProgress("\(Self.frames[frame % Self.frames.count]) \(label()), \(tenths / 10).\(tenths % 10) s")
        frame += 1
      } while stop.wait(timeout: .now() + .milliseconds(100)) == .timedOut
      console.clearProgress()
    }
    thread.name = "progress"
    thread.start()
  }

  /// The wait is over: the line is erased (if it was drawn) before this returns.
  func end() {
    stop.signal()
    done.wait()
  }
}
