import Synchronization

/// The target an instance calls back: forwards to its store while the store lives. The store
/// holds the relay; the relay holds the store weakly, so an instance never keeps its store alive.
final class CallbackRelay: InstanceCallbackTarget {
  private struct WeakStore { weak var store: Store? }
  private let reference = Mutex(WeakStore())

  var store: Store? {
    get { reference.withLock { $0.store } }
    set { reference.withLock { $0.store = newValue } }
  }

  func instanceEmitted(_ json: String, origin: EmitOrigin) { store?.instanceEmitted(json, origin: origin) }
  func instanceEmitted(_ emits: [InstanceEmit]) { store?.instanceEmitted(emits) }
  func instanceLogged(level: LogLevel, message: String) { store?.instanceLogged(level: level, message: message) }
  func instanceEffectBegan() { store?.instanceEffectBegan() }
  func instanceEffectEnded() { store?.instanceEffectEnded() }
  func instanceEmittedStep(_ json: String) { store?.instanceEmittedStep(json) }
  func instanceScheduled(after nanoseconds: UInt64, actions: String, origin: EmitOrigin) -> UInt64 {
    store?.instanceScheduled(after: nanoseconds, actions: actions, origin: origin) ?? 0
  }
  func instanceCancelledTimer(_ id: UInt64) { store?.instanceCancelledTimer(id) }
  func instanceTimerPending(_ id: UInt64) -> Bool { store?.instanceTimerPending(id) ?? false }
  func instanceRefused(_ refusal: SandboxRefusal) { store?.instanceRefused(refusal) }
  func instanceLostBetweenCalls() { store?.instanceLostBetweenCalls() }
  func instanceWaitForRoom(atMost: Duration) -> Bool { store?.instanceWaitForRoom(atMost: atMost) ?? true }
}
