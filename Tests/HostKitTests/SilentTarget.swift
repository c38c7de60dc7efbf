import HostKit

/// Callbacks that go nowhere: for an instance driven by hand, whose emits, logs and effects the
/// test does not look at.
final class SilentTarget: InstanceCallbackTarget {
  func instanceEmitted(_ json: String, origin: EmitOrigin) {}
  func instanceLogged(level: LogLevel, message: String) {}
  func instanceEffectBegan() {}
  func instanceEffectEnded() {}
}
