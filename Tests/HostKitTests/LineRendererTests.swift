import FeatureTesting
import HostKit
import Synchronization
import Testing

/// A sink that keeps what it is given; headings are bracketed so a test sees the sink styled them.
final class RecordingSink: LineSink {
  private let written = Mutex<[String]>([])

  var writes: [String] { written.withLock { $0 } }

  func writeLines(_ text: String) { written.withLock { $0.append(text) } }

  func heading(_ text: String) -> String { "[\(text)]" }
}

@Suite("Line renderer")
struct LineRendererTests {
  /// A started counter store, presented as feature `number`.
  static func counter(number: Int = 1) throws -> PresentedFeature {
    let plugin = try PluginLoader.load(CounterLibrary.path)
    let store = try Store(plugin: plugin, observer: { _ in })
    try store.start()
    return PresentedFeature(plugin: plugin, store: store, number: number)
  }

  /// A renderer, live (a terminal) or not (a pipe), and the sink that records what it writes.
  static func renderer(live: Bool) -> (LineRenderer, RecordingSink) {
    let sink = RecordingSink()
    return (LineRenderer(sink: sink, live: live), sink)
  }

  static func origin(_ feature: PresentedFeature, visible: Bool = true, of count: Int = 1) -> StoreOrigin {
    StoreOrigin(plugin: feature.plugin, feature: feature, isVisible: visible, visibleCount: count)
  }

  @Test func aViewIsDrawnOnceUntilItChanges() throws {
    // given a live renderer and a visible feature
    let (renderer, sink) = Self.renderer(live: true)
    let counter = try Self.counter()
    defer { counter.store.stop() }
    // when its store reports one view twice, then another
    renderer.hear(.viewChanged("one"), from: Self.origin(counter))
    renderer.hear(.viewChanged("one"), from: Self.origin(counter))
    renderer.hear(.viewChanged("two"), from: Self.origin(counter))
    // then each distinct view is written once, in order
    #expect(sink.writes == ["one", "two"])
  }

  @Test func aCoveredFeatureDrawsNothing() throws {
    let (renderer, sink) = Self.renderer(live: true)
    let counter = try Self.counter()
    defer { counter.store.stop() }
    renderer.hear(.viewChanged("hidden"), from: Self.origin(counter, visible: false, of: 1))
    renderer.hear(.applied(sequence: 1, action: "{}", source: .user, changed: true), from: Self.origin(counter))
    #expect(sink.writes.isEmpty)
  }

  @Test func severalVisibleFeaturesDrawUnderHeadingsTheFocusNamed() throws {
    // given two counters side by side, the second one changed
    let (renderer, sink) = Self.renderer(live: true)
    let first = try Self.counter(number: 1)
    let second = try Self.counter(number: 2)
    defer {
      first.store.stop()
      second.store.stop()
    }
    second.store.send(#"{"type":"increment"}"#, source: .user)
    #expect(second.store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    let views = [first, second].map { feature in feature.store.perform { try? $0.render() } ?? "" }
    // when the navigation presents them, focus on the second
    renderer.show([first, second], focus: second, reason: .presented)
    // then each view comes under its heading, in one write
    #expect(sink.writes == ["[── counter ──]\n\(views[0])\n[── counter (focus) ──]\n\(views[1])"])
    // and a change of one of them comes under its heading too
    renderer.hear(.viewChanged("changed"), from: Self.origin(first, of: 2))
    #expect(sink.writes.last == "[── counter ──]\nchanged")
  }

  @Test func aViewTheStoreDrewIsNotDrawnAgainByTheNavigationUnlessRevealed() throws {
    let (renderer, sink) = Self.renderer(live: true)
    let counter = try Self.counter()
    defer { counter.store.stop() }
    let view = try #require(counter.store.perform { try? $0.render() })
    // given the store reported its first view
    renderer.hear(.viewChanged(view), from: Self.origin(counter))
    // when the navigation that presented it shows it
    renderer.show([counter], focus: counter, reason: .presented)
    // then it is drawn once
    #expect(sink.writes == [view])
    // and revealed by a pop, it is drawn again, unchanged as it is
    renderer.show([counter], focus: counter, reason: .revealed)
    #expect(sink.writes == [view, view])
  }

  @Test func inAPipeTheStartDrawsNothingAndTheEndDrawsTheFinalView() throws {
    let (renderer, sink) = Self.renderer(live: false)
    let counter = try Self.counter()
    defer { counter.store.stop() }
    let view = try #require(counter.store.perform { try? $0.render() })
    #expect(!renderer.followsViews)
    #expect(!renderer.draws(on: .start))
    renderer.show([counter], focus: counter, reason: .start)
    #expect(sink.writes.isEmpty)
    renderer.finish([counter], focus: counter)
    #expect(sink.writes == [view])
  }

  @Test func liveTheEndDrawsNothingMore() throws {
    let (renderer, sink) = Self.renderer(live: true)
    let counter = try Self.counter()
    defer { counter.store.stop() }
    #expect(renderer.draws(on: .start))
    renderer.finish([counter], focus: counter)
    #expect(sink.writes.isEmpty)
  }

  /// A counter's store (not started) whose events `listener` hears through the fan-out, and its
  /// presented feature, attached (held weakly there: the caller keeps it).
  static func counterStore(heardBy listener: any StoreListener) throws
    -> (listeners: StoreListeners, store: Store, feature: PresentedFeature)
  {
    let plugin = try PluginLoader.load(CounterLibrary.path)
    let listeners = StoreListeners(plugin: plugin, stage: nil, listeners: [listener])
    let store = try Store(plugin: plugin, observer: listeners.observer)
    let feature = PresentedFeature(plugin: plugin, store: store, number: 1)
    listeners.attach(feature)
    return (listeners, store, feature)
  }

  @Test func everyListenerHearsEachEventWithItsFeature() throws {
    // given two listeners on one store, through the fan-out
    final class Recorder: StoreListener {
      let heard = Mutex<[String]>([])
      func hear(_ event: StoreEvent, from origin: StoreOrigin) {
        if case .applied(_, let action, _, _) = event {
          heard.withLock { $0.append("\(origin.feature?.id ?? "none") \(action)") }
        }
      }
    }
    let first = Recorder()
    let second = Recorder()
    let (listeners, store, feature) = try Self.counterStore(heardBy: first)
    defer { withExtendedLifetime(feature) {} }
    listeners.add(second)
    // when an action is applied
    try store.start()
    store.send(#"{"type":"increment"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    store.stop()
    // then both heard both actions, naming the feature
    let expected = [#"counter {"type":"created"}"#, #"counter {"type":"increment"}"#]
    #expect(first.heard.withLock { $0 } == expected)
    #expect(second.heard.withLock { $0 } == expected)
  }

  @Test func aListenerThatSaysItDoesNotHearAppliedActionsHearsTheRest() throws {
    // given a listener that ignores `.applied`, alone on a store, then one that hears it added
    final class Recorder: StoreListener {
      let hearsApplied: Bool
      let heard = Mutex<[String]>([])
      init(hearsApplied: Bool) { self.hearsApplied = hearsApplied }
      func hear(_ event: StoreEvent, from origin: StoreOrigin) {
        let name =
          switch event {
          case .applied: "applied"
          case .viewChanged: "view"
          default: "other"
          }
        heard.withLock { $0.append("\(origin.feature?.id ?? "none") \(name)") }
      }
    }
    let deaf = Recorder(hearsApplied: false)
    let (listeners, store, feature) = try Self.counterStore(heardBy: deaf)
    defer { withExtendedLifetime(feature) {} }
    try store.start()
    store.send(#"{"type":"increment"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    // when one that hears them is added and another action is applied
    let hearing = Recorder(hearsApplied: true)
    listeners.add(hearing)
    store.send(#"{"type":"increment"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    store.stop()
    // then the first heard views and no action, the second the action and its view
    let heard = deaf.heard.withLock { $0 }
    #expect(!heard.isEmpty && heard.allSatisfy { $0 == "counter view" }, "\(heard)")
    #expect(hearing.heard.withLock { $0 } == ["counter applied", "counter view"])
  }
}
