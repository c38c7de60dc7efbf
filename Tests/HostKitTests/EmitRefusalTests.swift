import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

/// The callbacks an instance was given, kept so a test can call them as the plugin would.
private final class TargetCapture: Sendable {
  private let target = Mutex<(any InstanceCallbackTarget)?>(nil)

  var factory: InstanceFactory {
    InstanceFactory { plugin, config, target throws(HostError) in
      self.target.withLock { $0 = target }
      return try InstanceFactory.inProcess.makeInstance(of: plugin, config: config, target: target)
    }
  }

  func emit(_ json: String) throws {
    try #require(target.withLock { $0 }).instanceEmitted(json, origin: .effect)
  }

  /// As a worker's listener hands over the emits of one read of its ring.
  func emitTogether(_ jsons: [String]) throws {
    try #require(target.withLock { $0 }).instanceEmitted(jsons.map { InstanceEmit($0, origin: .effect) })
  }
}

@Suite("A plugin's emits that are not actions")
struct EmitRefusalTests {
  /// Emits that are not a JSON object with a string "type", each with an id.
  static let badEmits: [(id: String, json: String, reason: String)] = [
    ("trailing comma", #"{"type":"tick",}"#, "not JSON"),
    ("array", #"[{"type":"tick"}]"#, "not a JSON object"),
    ("no type", #"{"kind":"tick"}"#, #"no "type""#),
    ("number type", #"{"type":3}"#, "not a string"),
    ("text", "tick", "not JSON"),
    ("empty", "", "not JSON"),
    // A NUL would end a scan of the text as a C string right after a good action.
    ("NUL inside", "{\"type\":\"tick\"}\u{0}{", "not JSON"),
  ]

  /// A counter store journaled in `folder`, whose plugin callbacks the test holds.
  private static func capturedCounter(in folder: String) throws -> (TargetCapture, JournaledStore) {
    let capture = TargetCapture()
    let journaled = try JournaledStore.start(
      try PluginLoader.load(CounterLibrary.path), journalPath: "\(folder)/counter.jsonl", instances: capture.factory)
    return (capture, journaled)
  }

  @Test func anEmitThatIsNotAnActionIsRefusedNamedCountedAndNeverJournaled() throws {
    // given a journaled counter store whose plugin callbacks the test holds
    let folder = try FixturePlugin.temporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (capture, journaled) = try Self.capturedCounter(in: folder)
    let (store, events, path) = (journaled.store, journaled.events, journaled.journalPath)
    // when the plugin emits each bad line, then one good action
    for bad in Self.badEmits { try capture.emit(bad.json) }
    try capture.emit(#"{"type":"increment"}"#)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    let report = store.stop()
    // then each was refused with an error naming the feature, counted, and the good one applied
    let refusals = events.all.compactMap { event -> HostError? in
      guard case .emitRefused(let error) = event else { return nil }
      return error
    }
    #expect(refusals.count == Self.badEmits.count)
    for (refusal, bad) in zip(refusals, Self.badEmits) {
      #expect(refusal.message.contains("feature 'counter' emitted"), "\(bad.id)")
      #expect(refusal.message.contains(bad.reason), "\(bad.id): \(refusal.message)")
    }
    #expect(report.refused == Self.badEmits.count)
    #expect(store.refusedEmits == Self.badEmits.count)
    #expect(events.appliedTypes == ["created", "increment"])
    // and the journal reads whole: only actions in it
    let actions = try Journal.read(path: path).records().compactMap { record -> String? in
      guard case .action(let action) = record else { return nil }
      return action.json
    }
    #expect(actions == [#"{"type":"created"}"#, #"{"type":"increment"}"#])
  }

  @Test func emitsHandedOverTogetherAreTakenInOrderAsOneByOne() throws {
    let folder = try FixturePlugin.temporaryFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let (capture, journaled) = try Self.capturedCounter(in: folder)
    let (store, events) = (journaled.store, journaled.events)
    let increment = #"{"type":"increment"}"#
    try capture.emitTogether(
      [increment, Self.badEmits[0].json, increment, Self.badEmits[6].json, #"{"type":"decrement"}"#])
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    _ = store.stop()
    let order = events.all.compactMap { event -> String? in
      switch event {
      case .applied(_, let action, _, _): (try? JSONValue.parse(action))?["type"]?.stringValue
      case .emitRefused: "refused"
      default: nil
      }
    }
    #expect(order == ["created", "increment", "refused", "increment", "refused", "decrement"])
    #expect(store.refusedEmits == 2)
  }

  @Test func aTimerWhoseActionsAreNotActionsIsRefusedAndCounted() throws {
    let plugin = try PluginLoader.load(CounterLibrary.path)
    let events = EventRecorder()
    let store = try Store(plugin: plugin, observer: events.observer)
    try store.start()
    let timer = store.instanceScheduled(after: 0, actions: #"[{"type":"increment"},{"kind":"x"}]"#, origin: .effect)
    #expect(timer == 0)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    #expect(store.stop().refused == 1)
    #expect(events.appliedTypes == ["created"])
  }
}
