import FeatureABI
import HostKit
import Synchronization
import Testing

/// Counts the callbacks an instance makes.
final class CallbackCounter: InstanceCallbackTarget {
  let emits = Mutex(0)
  func instanceEmitted(_ json: String, origin: EmitOrigin) { emits.withLock { $0 += 1 } }
  func instanceLogged(level: LogLevel, message: String) {}
  func instanceEffectBegan() {}
  func instanceEffectEnded() {}
}

@Suite("Plugin instance lifecycle")
struct PluginInstanceTests {
  @Test func reduceReplaysActionsBeforeStartWithoutEffects() throws {
    let target = CallbackCounter()
    let instance = try InstanceFactory.inProcess.makeInstance(
      of: try PluginLoader.load(CounterLibrary.path), config: "{}", target: target)
    try instance.restore(#"{"clicks":2,"count":2}"#)
    #expect(try instance.reduce(#"{"type":"increment"}"#) == true)
    #expect(try instance.reduce(#"{"type":"restored"}"#) == false)
    #expect(try instance.snapshot() == #"{"clicks":3,"count":3}"#)
    #expect(target.emits.withLock { $0 } == 0)
  }

  struct OutOfOrder: CustomTestStringConvertible, Sendable {
    let id: String
    let call: @Sendable (any PluginInstance) throws -> Void
    var testDescription: String { id }
  }

  static let outOfOrder: [OutOfOrder] = [
    OutOfOrder(id: "dispatch-before-start") { _ = try $0.dispatch(#"{"type":"increment"}"#) },
    OutOfOrder(id: "stop-before-start") { try $0.stop() },
    OutOfOrder(id: "start-twice") {
      try $0.start()
      try $0.start()
    },
    OutOfOrder(id: "dispatch-after-stop") {
      try $0.start()
      try $0.stop()
      _ = try $0.dispatch(#"{"type":"increment"}"#)
    },
    OutOfOrder(id: "restore-after-stop") {
      try $0.start()
      try $0.stop()
      try $0.restore(#"{"clicks":0,"count":0}"#)
    },
  ]

  @Test("a call out of lifecycle order is an error, not undefined behaviour", arguments: outOfOrder)
  func callOutOfOrderIsRejected(_ case: OutOfOrder) throws {
    let instance = try InstanceFactory.inProcess.makeInstance(
      of: try PluginLoader.load(CounterLibrary.path), config: "{}", target: CallbackCounter())
    let error = #expect(throws: PluginCallError.self) { try `case`.call(instance) }
    #expect(error?.status == fh_status(FH_ERR_LIFECYCLE))
    #expect(error?.message.contains("is not allowed on an instance that is") == true)
  }
}
