import FeatureJSON
import Foundation
import Synchronization

/// A running session as the devtools page sees it: the runtime's stack, each feature's journal
/// read on its store thread, its commands as the terminal's.
public final class LiveDevtools: DevtoolsSubject {
  private struct Held: Sendable { weak var runtime: SessionRuntime? }
  private let held: Mutex<Held>
  /// Timelines by feature, made at first use; dropped with their feature.
  private let timelines = Mutex<[ObjectIdentifier: (feature: Weak, timeline: DevtoolsTimeline)]>([:])

  private struct Weak: Sendable { weak var feature: PresentedFeature? }

  /// Looks at `runtime`, held weakly: the page never keeps a run alive.
  public init(runtime: SessionRuntime) {
    held = Mutex(Held(runtime: runtime))
  }

  public var isLive: Bool { true }

  private func runtime() throws(HostError) -> SessionRuntime {
    guard let runtime = held.withLock({ $0.runtime }) else { throw HostError("the run has ended") }
    return runtime
  }

  public func stackJSON() -> String {
    guard let runtime = try? runtime(), let coordinator = runtime.coordinator else { return "{\"frames\":[]}" }
    let frames = coordinator.frames.map { frame in (frame.features.map { ($0.number, $0.id) }, frame.focus) }
    return "{\"live\":true,\"frames\":\(Self.framesJSON(frames))}"
  }

  private func feature(_ key: Int) throws(HostError) -> PresentedFeature {
    let runtime = try runtime()
    guard let feature = runtime.coordinator?.all.first(where: { $0.number == key }) else {
      throw HostError("no feature \(key) is presented", help: "reload the page: the stack has changed")
    }
    return feature
  }

  public func timeline(_ key: Int) throws(HostError) -> DevtoolsTimeline {
    let feature = try feature(key)
    let runtime = try runtime()
    guard let context = feature.context as? SessionRuntime.Context else {
      throw HostError(RuntimeFailure.notLaunchedHere(feature: feature.id))
    }
    let id = ObjectIdentifier(feature)
    if let kept = timelines.withLock({ $0[id]?.timeline }) { return kept }
    let journal = context.journal
    let store = feature.store
    let header = journal.header
    let made = DevtoolsTimeline(
      key: key, plugin: feature.plugin, config: header.config ?? "{}", journalPath: journal.path,
      created: header.created, instances: runtime.settings.instances
    ) { body throws(HostError) in
      let result: Result<Void, HostError> = store.perform { _ in
        Result { () throws(HostError) in try journal.withHistory(body) }
      }
      try result.get()
    }
    return timelines.withLock { kept in
      // Features gone from the stack let go of their scratch instances.
      kept = kept.filter { $0.value.feature.feature != nil }
      if let other = kept[id]?.timeline { return other }
      kept[id] = (Weak(feature: feature), made)
      return made
    }
  }

  public func view(_ key: Int, at seq: Int?, skipping: Set<Int>) throws(HostError) -> String {
    // Another seq than the current one is drawn by the scratch instance, as a recorded one is.
    if let seq {
      let view = try timeline(key).view(at: seq, skipping: skipping)
      return Self.viewJSON(text: view.text, structured: view.structured)
    }
    let feature = try feature(key)
    let text = try runtime().view(of: feature) ?? ""
    let structured = feature.store.perform { instance in (try? instance.structuredView()) ?? nil }
    return Self.viewJSON(text: text, structured: structured)
  }

  public func perform(_ command: DevtoolsCommand, on key: Int) throws(HostError) -> String {
    let feature = try feature(key)
    let runtime = try runtime()
    switch command {
    case .dispatch(let line):
      try runtime.send(line, to: feature)
      _ = feature.store.waitUntilIdle(timeout: runtime.settings.settleTimeout)
    case .goto(let seq):
      try runtime.goto(seq, in: feature)
    case .undo:
      _ = try runtime.undo(feature)
    case .redo:
      _ = try runtime.redo(feature)
    case .pause:
      guard feature.store.holdFeedback() else {
        throw HostError("\(feature.id) runs no feedback loop to pause")
      }
    case .resume:
      try runtime.resume(feature)
    }
    return "{\"ok\":true}"
  }

  public func open(_ path: String) throws(HostError) {
    throw HostError("a live run cannot open a journal", help: "run 'host devtools \(path)'")
  }
}
