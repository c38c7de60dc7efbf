import FeatureJSON
import Foundation
import Synchronization

/// A recorded journal as the devtools page sees it (`host devtools FILE`): a feature's journal,
/// or a session's navigation journal with the features of its last stack. Nothing runs but
/// scratch replays, with effects off; `open` shows another file.
public final class RecordedDevtools: DevtoolsSubject {
  /// Finds the plugin a journal was recorded with (by feature id), loaded or described.
  public typealias PluginResolver = @Sendable (_ feature: String, _ journal: String) throws(HostError) -> LoadedPlugin

  private struct Shown: Sendable {
    var path: String
    var frames: [[DevtoolsTimeline]]
    var focus: [Int]
  }

  private let resolve: PluginResolver
  private let instances: InstanceFactory
  private let shown: Mutex<Shown>

  /// Reads the journal at `path`; throws what a replay would (an unreadable or damaged file).
  public init(path: String, instances: InstanceFactory, resolve: @escaping PluginResolver) throws(HostError) {
    self.resolve = resolve
    self.instances = instances
    shown = Mutex(try Self.load(path, instances: instances, resolve: resolve))
  }

  public var isLive: Bool { false }

  /// The file shown.
  public var path: String { shown.withLock { $0.path } }

  private static func load(_ path: String, instances: InstanceFactory, resolve: PluginResolver) throws(HostError)
    -> Shown
  {
    if let problem = RegularFile.problem(at: path) { throw problem }
    guard NavigationJournal.isNavigationJournal(path) else {
      return Shown(
        path: path, frames: [[try timeline(path, key: 1, instances: instances, resolve: resolve)]], focus: [0])
    }
    let (_, records, _) = try NavigationJournal.read(at: path)
    guard let last = records.last else {
      throw HostError("navigation journal '\(path)' holds no navigation", help: "open a feature's journal instead")
    }
    // The journals' paths are relative to the sessions folder, two levels above this file.
    let root = ((path as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    var key = 0
    var frames: [[DevtoolsTimeline]] = []
    for frame in last.frames {
      var timelines: [DevtoolsTimeline] = []
      for feature in frame.features {
        key += 1
        timelines.append(try timeline("\(root)/\(feature.journal)", key: key, instances: instances, resolve: resolve))
      }
      frames.append(timelines)
    }
    return Shown(path: path, frames: frames, focus: last.frames.map(\.focus))
  }

  private static func timeline(
    _ path: String, key: Int, instances: InstanceFactory, resolve: PluginResolver
  ) throws(HostError) -> DevtoolsTimeline {
    let journal = try Journal.read(path: path)
    let history = try journal.history()
    let plugin = try resolve(journal.header.feature, path)
    return DevtoolsTimeline(
      key: key, plugin: plugin, config: journal.header.config ?? "{}", journalPath: path,
      created: journal.header.created, instances: instances
    ) { body throws(HostError) in try body(history) }
  }

  public func stackJSON() -> String {
    let (path, frames, focus) = shown.withLock { ($0.path, $0.frames, $0.focus) }
    let stack = zip(frames, focus).map { frame, focus in (frame.map { ($0.key, $0.plugin.id) }, focus) }
    let file = JSONValue.string(path).serialized()
    return "{\"live\":false,\"file\":\(file),\"frames\":\(Self.framesJSON(stack))}"
  }

  public func timeline(_ key: Int) throws(HostError) -> DevtoolsTimeline {
    guard let found = shown.withLock({ $0.frames.joined().first { $0.key == key } }) else {
      throw HostError("no feature \(key) in this journal", help: "reload the page")
    }
    return found
  }

  public func view(_ key: Int, at seq: Int?, skipping: Set<Int>) throws(HostError) -> String {
    let timeline = try timeline(key)
    var at = seq ?? 0
    if seq == nil { at = try timeline.read { $0.currentSeq } }
    let view = try timeline.view(at: at, skipping: skipping)
    return Self.viewJSON(text: view.text, structured: view.structured)
  }

  public func perform(_ command: DevtoolsCommand, on key: Int) throws(HostError) -> String {
    throw HostError("a recorded journal cannot be changed", help: "run it again with 'host run ... --devtools'")
  }

  public func open(_ path: String) throws(HostError) {
    let loaded = try Self.load(path, instances: instances, resolve: resolve)
    shown.withLock { $0 = loaded }
  }
}
