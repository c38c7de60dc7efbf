import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

// Peak memory of a kittens session whose state holds 100,000 URLs, as a person meets it:
// `host run kittens --session big` restores the journal (its last snapshot and the actions after
// it), takes a typed `loadMore` (whose load fails: the endpoint is a missing file), writes the
// snapshot that comes due, prints the view and exits.

/// The actions recorded after the snapshot: with the run's `restored`, `loadMore` and
/// `loadFailed` they make the 1,000 after which the journal wants its next snapshot.
private let recordedActions = SnapshotPolicy.default.everyActions - 3

/// A kittens state of `count` URLs shaped like thecatapi's: `https://cdn2.thecatapi.com/images/`,
/// a 9-character id, `.jpg`. The ids are pseudo-random (fixed seed), so no two URLs share a tail.
func kittensState(urls count: Int) -> String {
  let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-".utf8)
  var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
  var out: [UInt8] = Array(#"{"endReached":false,"isLoading":false,"loadingOffset":0,"nextOffset":"#.utf8)
  out += Array("\(count)".utf8) + Array(#","urls":["#.utf8)
  out.reserveCapacity(count * 48 + 128)
  for index in 0..<count {
    if index > 0 { out.append(UInt8(ascii: ",")) }
    out += Array(#""https://cdn2.thecatapi.com/images/"#.utf8)
    for _ in 0..<9 {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      out.append(alphabet[Int(seed >> 58)])
    }
    out += Array(#".jpg""#.utf8)
  }
  out += Array("]}".utf8)
  return String(decoding: out, as: UTF8.self)
}

/// A session folder holding `big.jsonl`: a kittens journal whose snapshot holds `urls` URLs,
/// followed by `recordedActions` actions. Returns the folder (for `XDG_STATE_HOME`).
func makeKittensSession(urls: Int) throws -> (stateHome: String, journal: String) {
  let stateHome = FileManager.default.temporaryDirectory.appendingPathComponent("kittens-memory-\(getpid())").path
  try? FileManager.default.removeItem(atPath: stateHome)
  let sessions = SessionDirectory(root: "\(stateHome)/featurehost")
  try sessions.ensureExists()
  let path = try sessions.path(for: "big")
  let writer = try JournalWriter.create(
    at: path,
    header: JournalHeader(
      plugin: loadPlugin("Kittens"), config: #"{"endpoint":"file:///nonexistent/kittens/catalog.json"}"#))
  try writer.append(snapshot: kittensState(urls: urls))
  // Recorded failures of loads that were in flight: the reducer ignores them once replayed.
  for _ in 0..<recordedActions {
    try writer.append(action: #"{"reason":"offline","type":"loadFailed"}"#, source: .effect)
  }
  try writer.close()
  return (stateHome, path)
}

/// The byte offset of the journal's last line.
private func lastLineStart(_ path: String) -> Int? {
  guard let data = FileManager.default.contents(atPath: path), data.count > 1 else { return nil }
  let bytes = [UInt8](data.suffix(from: data.count > 8 << 20 ? data.count - (8 << 20) : 0))
  guard let newline = bytes.dropLast().lastIndex(of: UInt8(ascii: "\n")) else { return nil }
  return data.count - bytes.count + newline + 1
}

/// Peak RSS in MB of that session run (`isolation` none: the one process; worker: the larger of
/// the host and its worker). Checks that the run wrote a snapshot of the 100,000 URLs.
func kittensSessionPeakRSS(urls: Int, isolation: String) throws -> Double {
  let session = try makeKittensSession(urls: urls)
  defer { try? FileManager.default.removeItem(atPath: session.stateHome) }
  let before = try FileManager.default.attributesOfItem(atPath: session.journal)[.size] as? Int ?? 0
  var environment = ChildProcess.currentEnvironment
  environment["XDG_STATE_HOME"] = session.stateHome
  var process = ChildProcess(
    "\(folder)/Benchmarks",
    arguments: [
      childPeakArgument, "\(folder)/host", "run", "kittens", "--session", "big", "--isolation", isolation,
    ], environment: environment)
  process.standardInput = .bytes(Array("loadMore\n".utf8))
  process.standardError = .discard
  let kilobytes = try measuredPeak(process)
  // The snapshot the run wrote: the last line, a state line, as long as the state restored.
  let after = try FileManager.default.attributesOfItem(atPath: session.journal)[.size] as? Int ?? 0
  let lastLine = lastLineStart(session.journal) ?? 0
  precondition(
    lastLine >= before && after - lastLine > urls * 40,
    "the run must end with a snapshot of \(urls) URLs (journal \(before) -> \(after) bytes)")
  return kilobytes / 1024
}

/// Peak RSS in MB of a worker process doing what the session's worker does: restore the state
/// from the journal, `restored`, `loadMore` until settled, the snapshot, stop.
func kittensWorkerPeakRSS(urls: Int) throws -> Double {
  let session = try makeKittensSession(urls: urls)
  defer { try? FileManager.default.removeItem(atPath: session.stateHome) }
  var process = ChildProcess(
    "\(folder)/Benchmarks", arguments: [childPeakArgument, workerPeakArgument, session.journal])
  process.standardError = .discard
  return try measuredPeak(process) / 1024
}

/// The argument (after `childPeakArgument`) that makes the measuring copy drive a worker itself.
let workerPeakArgument = "__kittens-worker"

/// In the measuring copy: the worker's side of the session run, driven from here, so that the
/// worker is this process's only child.
func driveKittensWorker(journal path: String) throws {
  let point = try Journal.read(path: path).restorePoint()
  let store = try Store(
    plugin: loadPlugin("Kittens"), config: #"{"endpoint":"file:///nonexistent/kittens/catalog.json"}"#,
    instances: .worker(executable: "\(folder)/host"), observer: { _ in })
  try store.start(restored: true) { instance throws(HostError) in try point.apply(to: instance) }
  store.send(#"{"type":"loadMore"}"#, source: .user)
  _ = store.waitUntilSettled(timeout: .seconds(60))
  let state = store.perform { try? $0.snapshot() }
  precondition((state?.utf8.count ?? 0) > 40 * 100_000, "the worker must give the state back")
  _ = store.stop()
}

/// Runs `process` (the measuring copy) and returns the peak it printed, in KB.
private func measuredPeak(_ template: ChildProcess) throws -> Double {
  let result = try template.run(timeout: .seconds(600))
  guard result.termination == .exited(0), let kilobytes = Double(result.outputText.trimmingWhitespace()) else {
    fatalError("the measuring copy failed: \(result.termination) \(result.outputText)")
  }
  return kilobytes
}
