import FeatureABI
import Foundation

/// The validator's end of one instance's host callbacks: queues what the plugin emits, counts the
/// effects it reports in flight, and, once told the instance was stopped, records every callback
/// as a breach of the contract. Thread-safe: the plugin may call from any thread.
// @unchecked: every mutable field is guarded by `condition`.
final class CallbackRecorder: InstanceCallbackTarget, @unchecked Sendable {
  // Guarded by `condition`, which is signalled on every callback.
  private let condition = NSCondition()
  private var queued: [String] = []
  private var effectsInFlight = 0
  private var stopped = false
  private var late: [String] = []

  func instanceEmitted(_ json: String, origin: EmitOrigin) {
    let text = json
    record { stopped in
      if stopped { return "emit(\(ConformanceText.quote(text, limit: 60)))" }
      queued.append(text)
      return nil
    }
  }

  func instanceLogged(level: LogLevel, message: String) {
    let text = message
    record { stopped in stopped ? "log(\(ConformanceText.quote(text, limit: 60)))" : nil }
  }

  func instanceEffectBegan() {
    record { stopped in
      if stopped { return "effect_began()" }
      effectsInFlight += 1
      return nil
    }
  }

  func instanceEffectEnded() {
    record { stopped in
      if stopped { return "effect_ended()" }
      effectsInFlight = max(0, effectsInFlight - 1)
      return nil
    }
  }

  /// Runs `body` under the lock; a non-nil result is a callback made after stop returned.
  private func record(_ body: (Bool) -> String?) {
    condition.lock()
    if let breach = body(stopped) { late.append(breach) }
    condition.broadcast()
    condition.unlock()
  }

  /// From now on every callback is a breach: call it as soon as the plugin's stop returned.
  func markStopped() {
    condition.lock()
    stopped = true
    condition.unlock()
  }

  /// Waits until a callback arrives after stop, or `deadline` passes; returns the breaches.
  /// Returns at the first breach, so only a well-behaved plugin costs the whole window.
  func breachesAfterStop(waitingUntil deadline: Date) -> [String] {
    condition.lock()
    defer { condition.unlock() }
    while late.isEmpty && condition.wait(until: deadline) {}
    return late
  }

  /// What `takeEmitted` found.
  struct Batch {
    var actions: [String]
    var effectsInFlight: Int
  }

  /// The actions emitted since the last call, waiting until `deadline` for one to arrive while
  /// an effect is in flight. An empty batch with effects in flight means the wait timed out.
  func takeEmitted(waitingUntil deadline: Date) -> Batch {
    condition.lock()
    defer { condition.unlock() }
    while queued.isEmpty && effectsInFlight > 0 && condition.wait(until: deadline) {}
    let batch = Batch(actions: queued, effectsInFlight: effectsInFlight)
    queued.removeAll()
    return batch
  }
}
