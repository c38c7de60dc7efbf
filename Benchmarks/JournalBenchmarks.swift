import Foundation
import HostKit

// Session journal benchmarks. Each works in a fresh folder under $TMPDIR (or /tmp) and removes it.

/// `journal.append`: ns per action to append counter actions (with a snapshot every 1,000, as the
/// store's policy does) and make them durable by group commit, as the store does under a burst:
/// the writer commits every 4,096 lines or 256 KiB, and once more at the end.
func journalAppend(actions: Int) -> Double {
  let folder = JournalBenchmarkFolder()
  defer { folder.remove() }
  let increment = #"{"type":"increment"}"#
  return journalBenchmarkOrExit {
    let writer = try JournalWriter.create(
      at: folder.file("append.jsonl"),
      header: JournalHeader(feature: "counter", featureVersion: "1.0.0"))
    let elapsed = try seconds {
      for count in 1...actions {
        try writer.append(action: increment, source: .user)
        if writer.snapshotDue {
          try writer.append(snapshot: #"{"clicks":\#(count),"count":\#(count)}"#)
        }
      }
      try writer.commit()
    }
    try writer.close()
    return elapsed * 1e9 / Double(actions)
  }
}

/// `session.restore`: ms to restore a counter session of `actions` actions (written with the
/// default snapshot policy): read and check the journal, then restore its last snapshot into a
/// fresh instance of the real counter plugin and reduce the actions after it. The file is in the
/// page cache, as it is right after a run.
func sessionRestore(actions: Int) -> Double {
  let folder = JournalBenchmarkFolder()
  defer { folder.remove() }
  let path = folder.file("restore.jsonl")
  let plugin = loadPlugin("Counter")
  return journalBenchmarkOrExit {
    try writeCounterSession(at: path, plugin: plugin, actions: actions)
    var restored = ""
    let elapsed = try seconds {
      let journal = try Journal.read(path: path, feature: plugin.id)
      let point = try journal.restorePoint()
      let instance = try InstanceFactory.inProcess.makeInstance(
        of: plugin, config: journal.header.config ?? "{}", target: JournalBenchmarkTarget())
      try point.apply(to: instance)
      restored = try instance.snapshot()
    }
    let expected = #"{"clicks":\#(actions - 1),"count":\#(actions - 1)}"#
    precondition(restored == expected, "the restore must reach \(expected), got \(restored)")
    return elapsed * 1000
  }
}

/// A counter session: `created`, then increments, with snapshots as the plugin would write them.
func writeCounterSession(at path: String, plugin: LoadedPlugin, actions: Int) throws {
  let writer = try JournalWriter.create(at: path, header: JournalHeader(plugin: plugin))
  try writer.append(action: #"{"type":"created"}"#, source: .lifecycle)
  for count in 1..<max(actions, 1) {
    try writer.append(action: #"{"type":"increment"}"#, source: .user)
    if writer.snapshotDue {
      try writer.append(snapshot: #"{"clicks":\#(count),"count":\#(count)}"#)
    }
  }
  try writer.close()
}

/// Runs `body`; on error prints it as the host would and exits 1.
private func journalBenchmarkOrExit<T>(_ body: () throws -> T) -> T {
  do {
    return try body()
  } catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
  }
}

/// A fresh folder made with mkdtemp.
private struct JournalBenchmarkFolder {
  let path: String

  init() {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(base)/featurehost-bench.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      FileHandle.standardError.write(Data("error: cannot make a folder in \(base)\n".utf8))
      exit(1)
    }
    path = String(cString: made)
  }

  func file(_ name: String) -> String { "\(path)/\(name)" }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Ignores callbacks: a restore only restores and reduces, so nothing calls back.
private final class JournalBenchmarkTarget: InstanceCallbackTarget {
  func instanceEmitted(_ json: String, origin: EmitOrigin) {}
  func instanceLogged(level: LogLevel, message: String) {}
  func instanceEffectBegan() {}
  func instanceEffectEnded() {}
}

/// `:goto` on a counter journal of 999 actions with no snapshot after its start, to the state
/// after 998: `replayed`, the miss path (the start restored and 998 actions reduced), beside
/// `noted`, where exploring's probe noted each state it checked (`SessionJournal.noteState`)
/// and the travel restores the noted one. Each travel is journaled, as `:goto` is. Nanoseconds
/// per travel.
func exploreTravel(travels: Int) throws -> (noted: Double, replayed: Double) {
  let folder = JournalBenchmarkFolder()
  defer { folder.remove() }
  let plugin = loadPlugin("Counter")
  func travel(noting: Bool) throws -> Double {
    let instance = try InstanceFactory.inProcess.makeInstance(of: plugin, config: "{}", target: SilentTarget())
    try instance.start()
    _ = try instance.dispatch(#"{"type":"created"}"#)
    defer { try? instance.stop() }
    let journal = try SessionJournal.create(
      at: folder.file("travel-\(noting).jsonl"), plugin: plugin, config: "{}", temporary: true)
    defer { journal.close() }
    try journal.recordInitialState(try instance.snapshot())
    let increment = #"{"type":"increment"}"#
    for _ in 1...999 {
      _ = try instance.dispatch(increment)
      _ = try journal.recordApplied(action: increment, source: .user, instance: instance)
      if noting { journal.noteState(try instance.snapshot()) }
    }
    // The history is read from the file once, before the timing.
    try journal.goto(998, on: instance)
    let elapsed = try seconds { for _ in 0..<travels { try journal.goto(998, on: instance) } }
    let reached = try instance.snapshot()
    precondition(reached == #"{"clicks":998,"count":998}"#, "the travel must reach seq 998, not \(reached)")
    return elapsed * 1e9 / Double(travels)
  }
  return (try travel(noting: true), try travel(noting: false))
}
