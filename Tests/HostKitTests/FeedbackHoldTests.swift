import Dispatch
import FeatureTesting
import HostKit
import Synchronization
import Testing

/// Ctrl-C at a terminal holds a running regulation's feedback loop (`Store.holdFeedback`).
@Suite("Holding a feedback loop")
struct FeedbackHoldTests {
  /// In-process instances whose first dispatch of a levels step (only feedback sends one) waits
  /// until released: the moment a regulation has no timer pending and nothing queued.
  final class StepGate: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let closed = Atomic(false)

    var factory: InstanceFactory {
      InstanceFactory { plugin, config, target throws(HostError) in
        GatedInstance(
          base: try InstanceFactory.inProcess.makeInstance(of: plugin, config: config, target: target), gate: self)
      }
    }

    fileprivate func pass(_ json: String) {
      guard json.contains("crease"), !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
      entered.signal()
      release.wait()
    }
  }

  @Test func aLoopIsHeldWhileItsStepIsBeingApplied() throws {
    let gate = StepGate()
    let plugin = try PluginLoader.load(PluginPaths.library("Levels"))
    let store = try Store(plugin: plugin, config: #"{"interval":20}"#, instances: gate.factory, observer: { _ in })
    defer { _ = store.stop() }
    try store.start()
    // given a regulation whose step is being applied: its timer fired, the next is not yet scheduled
    store.send(#"{"left":0,"right":400,"type":"set"}"#, source: .user)
    try #require(gate.entered.wait(timeout: .now() + 30) == .success)
    // when Ctrl-C asks to hold it, then it is held
    #expect(store.holdFeedback())
    gate.release.signal()
    #expect(store.isFeedbackHeld)
  }
}

/// Forwards to an in-process instance, letting `gate` hold a dispatch.
private final class GatedInstance: ForwardingInstance {
  let base: any PluginInstance
  private let gate: FeedbackHoldTests.StepGate

  init(base: any PluginInstance, gate: FeedbackHoldTests.StepGate) {
    self.base = base
    self.gate = gate
  }

  func dispatch(_ json: String) throws(PluginCallError) -> Bool {
    gate.pass(json)
    return try base.dispatch(json)
  }
}
