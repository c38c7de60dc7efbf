import FeatureJSON
import Foundation
import Synchronization

/// One feature as the devtools page sees it: its journal's history, read where it lives (the
/// store thread for a live feature, memory for a recorded one), and a scratch instance that
/// recomputes states without touching the feature.
public final class DevtoolsTimeline: Sendable {
  /// How the history is read: `body` runs where the history lives, with it.
  typealias HistoryReader =
    @Sendable (_ body: @escaping (JournalHistory) throws(HostError) -> Void) throws(HostError) -> Void

  public let key: Int
  public let plugin: LoadedPlugin
  public let journalPath: String
  /// The journal header's `created`: what the actions' times count from.
  public let created: String
  private let readHistory: HistoryReader
  private let scratch: ScratchReplay

  init(
    key: Int, plugin: LoadedPlugin, config: String, journalPath: String, created: String,
    instances: InstanceFactory, readHistory: @escaping HistoryReader
  ) {
    self.key = key
    self.plugin = plugin
    self.journalPath = journalPath
    self.created = created
    self.readHistory = readHistory
    scratch = ScratchReplay(plugin: plugin, config: config, instances: instances)
  }

  /// What `body` takes from the history.
  func read<T: Sendable>(_ body: @escaping (JournalHistory) throws(HostError) -> T) throws(HostError) -> T {
    let taken = Mutex<T?>(nil)
    try readHistory { history throws(HostError) in
      let value = try body(history)
      taken.withLock { $0 = value }
    }
    guard let value = taken.withLock({ $0 }) else { throw HostError("\(plugin.id): its history was not read") }
    return value
  }

  /// A page of the log as JSON: `{"current":SEQ,"last":SEQ,"entries":[...],"created":TIME}`; an
  /// action's `at` (when its journal line has one) counts milliseconds from `created`.
  public func logPage(from: Int, count: Int) throws(HostError) -> String {
    let (current, entries) = try read { history in
      (
        history.currentSeq,
        history.entries(from: from, count: count).map {
          ($0, history.crashes(after: $0.seq), history.refusals(after: $0.seq))
        }
      )
    }
    var out = "{\"current\":\(current),\"last\":\(current),\"entries\":["
    for (index, (entry, crashes, refusals)) in entries.enumerated() {
      if index > 0 { out += "," }
      out += Self.json(entry, crashes: crashes, refusals: refusals)
    }
    return out + "],\"created\":\(JSONValue.string(created).serialized())}"
  }

  /// An entry of the log; the crashes and refusals journaled after its seq, if any, as `"crashes"`
  /// and `"refusals"` (each refusal's action as journaled: an object, or the text sent).
  static func json(
    _ entry: JournalHistory.Entry, crashes: [JournalCrash] = [], refusals: [JournalRefusal] = []
  ) -> String {
    var out: String
    switch entry.kind {
    case .start:
      out = "{\"seq\":0,\"kind\":\"start\""
    case .action(let action, let effective):
      out =
        "{\"seq\":\(entry.seq),\"kind\":\"action\",\"source\":\"\(action.source.rawValue)\","
        + "\"effective\":\(effective),\"action\":\(action.json)"
      if let at = action.at { out += ",\"at\":\(at)" }
    case .travel(let travel):
      out =
        "{\"seq\":\(entry.seq),\"kind\":\"travel\",\"travel\":\"\(travel.kind.rawValue)\","
        + "\"to\":\(travel.to.map(String.init) ?? "null")"
    }
    if !crashes.isEmpty {
      let quoted = { (text: String) in JSONValue.string(text).serialized() }
      out += ",\"crashes\":["
      out += crashes.map { crash in
        "{\"loss\":\(quoted(crash.loss)),\"call\":\(quoted(crash.call)),\"action\":\(quoted(crash.action ?? ""))}"
      }.joined(separator: ",")
      out += "]"
    }
    if !refusals.isEmpty {
      out += ",\"refusals\":["
      out += refusals.map { refusal in
        var members: [String: JSONValue] = [
          "source": .string(refusal.source.rawValue), "error": .string(refusal.error),
          "action": (try? JSONValue.parse(refusal.action)) ?? .string(refusal.action),
        ]
        if let at = refusal.at { members["at"] = .number(.int(Int64(at))) }
        return JSONValue.object(members).serialized()
      }.joined(separator: ",")
      out += "]"
    }
    return out + "}"
  }

  /// The state after `seq` and the one before it (for the diff), as JSON; with `skipping`, the
  /// states as they would be without those actions, recomputed in the scratch instance.
  public func states(at seq: Int, skipping: Set<Int>) throws(HostError) -> String {
    let after = try state(at: seq, skipping: skipping)
    let before = seq > 0 ? try state(at: seq - 1, skipping: skipping) : "null"
    let skipped = skipping.sorted().map(String.init).joined(separator: ",")
    return "{\"seq\":\(seq),\"skipping\":[\(skipped)],\"state\":\(after),\"before\":\(before)}"
  }

  /// The state after `seq` (without the actions in `skipping`), as JSON.
  public func state(at seq: Int, skipping: Set<Int>) throws(HostError) -> String {
    let plan = try replayPlan(to: seq, skipping: skipping)
    return try scratch.run(plan) { instance throws(HostError) in
      do {
        return try instance.snapshot()
      } catch {
        throw HostError("\(plugin.id): the scratch instance could not snapshot: \(error)")
      }
    }
  }

  /// The view after `seq` (without `skipping`), drawn by the scratch instance: its text, and its
  /// structured view when the plugin offers one.
  func view(at seq: Int, skipping: Set<Int>) throws(HostError) -> (text: String, structured: String?) {
    let plan = try replayPlan(to: seq, skipping: skipping)
    return try scratch.run(plan) { instance throws(HostError) in
      do {
        return (try instance.render(), (try? instance.structuredView()) ?? nil)
      } catch {
        throw HostError("\(plugin.id): the scratch instance could not render: \(error)")
      }
    }
  }

  /// The recorded state nearest `seq` and the actions from it, leaving out `skipping`.
  private func replayPlan(to seq: Int, skipping: Set<Int>) throws(HostError) -> JournalRestorePoint {
    let floor = skipping.filter { $0 <= seq }.min()
    return try read { history throws(HostError) in
      guard let floor else { return try history.restorePoint(to: seq) }
      let (base, actions) = history.effectiveActions(at: seq, from: floor)
      var point = try history.restorePoint(to: base)
      point.actions += actions.filter { !skipping.contains($0.seq) }
      point.lastSeq = seq
      return point
    }
  }
}

/// One instance of a feature, never started (no effects), that states are recomputed in: a
/// restore point is applied to it and it is asked. One caller at a time.
// @unchecked: `held` is touched only under `lock`.
final class ScratchReplay: @unchecked Sendable {
  private let plugin: LoadedPlugin
  private let config: String
  private let instances: InstanceFactory
  private let lock = NSLock()
  private var held: (any PluginInstance)?

  init(plugin: LoadedPlugin, config: String, instances: InstanceFactory) {
    self.plugin = plugin
    self.config = config
    self.instances = instances
  }

  func run<T>(_ point: JournalRestorePoint, _ ask: (any PluginInstance) throws(HostError) -> T) throws(HostError)
    -> T
  {
    lock.lock()
    defer { lock.unlock() }
    let scratch: any PluginInstance
    if let kept = held, point.state != nil {
      scratch = kept
    } else {
      held?.destroy()
      held = nil
      scratch = try instances.makeInstance(of: plugin, config: config, target: SilentTarget())
    }
    held = scratch
    do throws(HostError) {
      try point.apply(to: scratch)
      return try ask(scratch)
    } catch {
      // A refusal may leave it half way: the next run starts from a new one.
      scratch.destroy()
      held = nil
      throw error
    }
  }

  deinit { held?.destroy() }
}
