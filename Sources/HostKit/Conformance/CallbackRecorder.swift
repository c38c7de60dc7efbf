import FeatureABI
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

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
  private var phase = Phase.creating
  /// The thread inside a dispatch call, if one runs: its own emits need no effect in flight.
  private var dispatchingThread: pthread_t?
  private var phaseBreaches: [String] = []
  private var accountingBreaches: [String] = []

  /// Where the instance is in its lifecycle, as far as callbacks go: before start returned only
  /// log may be called.
  enum Phase: String {
    case creating = "during create"
    case created = "between create and start"
    case starting = "during start"
    case running
  }

  func instanceEmitted(_ json: String, origin: EmitOrigin) {
    let text = json
    let thread = pthread_self()
    record { stopped in
      let call = "emit(\(ConformanceText.quote(text, limit: 60)))"
      if stopped { return call }
      if phase != .running {
        phaseBreaches.append("\(call) \(phase.rawValue)")
      } else if effectsInFlight == 0 && !(dispatchingThread.map { pthread_equal($0, thread) != 0 } ?? false) {
        accountingBreaches.append("\(call) outside dispatch with no effect in flight (no effect_began before it)")
      }
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
      if phase != .running { phaseBreaches.append("effect_began() \(phase.rawValue)") }
      effectsInFlight += 1
      return nil
    }
  }

  func instanceEffectEnded() {
    record { stopped in
      if stopped { return "effect_ended()" }
      if phase != .running { phaseBreaches.append("effect_ended() \(phase.rawValue)") }
      if effectsInFlight == 0 { accountingBreaches.append("effect_ended() with no effect in flight") }
      effectsInFlight = max(0, effectsInFlight - 1)
      return nil
    }
  }

  /// Steps `phase` on: the instance calls this around create and start.
  func enter(_ phase: Phase) {
    condition.lock()
    self.phase = phase
    condition.unlock()
  }

  /// Marks the calling thread as inside (or, with false, out of) a dispatch call.
  func dispatching(_ inside: Bool) {
    condition.lock()
    dispatchingThread = inside ? pthread_self() : nil
    condition.unlock()
  }

  /// Callbacks other than log made before start returned.
  var callbacksOutOfPhase: [String] {
    condition.lock()
    defer { condition.unlock() }
    return phaseBreaches
  }

  /// As `accountingErrors`, waiting until one arrives or `deadline` passes: a breaking plugin
  /// answers at once, only a good one costs the whole window.
  func accountingErrors(waitingUntil deadline: Date) -> [String] {
    condition.lock()
    defer { condition.unlock() }
    while accountingBreaches.isEmpty && condition.wait(until: deadline) {}
    return accountingBreaches
  }

  /// Emits outside dispatch without an effect in flight, and effect_ended without one.
  var accountingErrors: [String] {
    condition.lock()
    defer { condition.unlock() }
    return accountingBreaches
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
