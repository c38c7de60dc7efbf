import FeatureJSON
import Foundation
import HostKit

// How soon the host learns that a worker is gone (issue 25: within 50 ms, in a call or between
// calls): from the SIGKILL sent to the worker to the host's notice.

/// Signals when the worker's loss between calls reaches it (the listener's notice).
final class LossTarget: InstanceCallbackTarget {
  let noticed = DispatchSemaphore(value: 0)
  func instanceEmitted(_ json: String, origin: EmitOrigin) {}
  func instanceLogged(level: LogLevel, message: String) {}
  func instanceEffectBegan() {}
  func instanceEffectEnded() {}
  func instanceLostBetweenCalls() { noticed.signal() }
}

/// A counter worker, started, its first action applied.
private func startedCounterWorker(target: LossTarget) throws -> WorkerInstance {
  let made = try workerFactory.makeInstance(of: loadPlugin("Counter"), config: "{}", target: target)
  guard let instance = made as? WorkerInstance else { throw HostError("the worker factory made no worker") }
  try instance.start()
  _ = try instance.dispatch(#"{"type":"created"}"#)
  return instance
}

/// Milliseconds from killing an idle worker to the host's notice (`instanceLostBetweenCalls`).
func workerLossBetweenCalls() throws -> Double {
  let target = LossTarget()
  let instance = try startedCounterWorker(target: target)
  defer { instance.destroy() }
  let start = ContinuousClock.now
  kill(instance.workerProcessID, SIGKILL)
  guard target.noticed.wait(timeout: .now() + 10) == .success else { throw HostError("no loss noticed in 10 s") }
  return (ContinuousClock.now - start).milliseconds
}

/// Milliseconds from killing a worker that another thread keeps calling to that thread's call
/// throwing the loss.
func workerLossInCall() throws -> Double {
  let target = LossTarget()
  let instance = try startedCounterWorker(target: target)
  defer { instance.destroy() }
  let threw = Locked<ContinuousClock.Instant?>(nil)
  let calling = DispatchSemaphore(value: 0)
  let done = DispatchSemaphore(value: 0)
  // Unchecked: only the calling thread calls the instance; this one reads its process id, which
  // never changes, and destroys it after `done`.
  nonisolated(unsafe) let caller = instance
  Thread.detachNewThread {
    var signalled = false
    while true {
      do {
        _ = try caller.dispatch(#"{"type":"increment"}"#)
      } catch {
        threw.withLock { $0 = ContinuousClock.now }
        break
      }
      if !signalled {
        signalled = true
        calling.signal()
      }
    }
    done.signal()
  }
  calling.wait()
  let start = ContinuousClock.now
  kill(instance.workerProcessID, SIGKILL)
  guard done.wait(timeout: .now() + 10) == .success, let end = threw.withLock({ $0 }) else {
    throw HostError("the calling thread did not see the loss in 10 s")
  }
  return (end - start).milliseconds
}

extension Duration {
  fileprivate var milliseconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
  }
}
