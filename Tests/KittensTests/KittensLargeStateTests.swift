import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import KittensFeature
import Testing

/// A kittens state of 100,000 URLs through the real plugin: restored, given back and journaled,
/// byte for byte, in process and in a worker.
@Suite("Kittens with 100,000 URLs")
struct KittensLargeStateTests {
  static let urls = (0..<100_000).map { "https://cdn2.thecatapi.com/images/\(String($0 * 7_919, radix: 36)).jpg" }
  static let state = KittensFeature.State(urls: urls, loadingOffset: 99_990)
  /// The state as the plugin writes it: keys in byte order, as the tree encoder puts them.
  static let json = (try? JSONValueEncoder().encode(state).serialized()) ?? ""

  final class Quiet: InstanceCallbackTarget {
    func instanceEmitted(_ json: String, origin: EmitOrigin) {}
    func instanceLogged(level: LogLevel, message: String) {}
    func instanceEffectBegan() {}
    func instanceEffectEnded() {}
  }

  static func roundTrip(_ instances: InstanceFactory) throws -> String {
    let plugin = try PluginLoader.load(PluginPaths.library("Kittens"))
    let instance = try instances.makeInstance(of: plugin, config: "{}", target: Quiet())
    defer { instance.destroy() }
    try instance.restore(json)
    return try instance.snapshot()
  }

  @Test func aRestoredStateComesBackByteForByteInProcess() throws {
    #expect(
      Self.json.hasPrefix(#"{"endReached":false,"isLoading":false,"loadingOffset":99990,"nextOffset":100000,"urls":["#))
    let snapshot = try Self.roundTrip(.inProcess)
    #expect(snapshot == Self.json)
    #expect(try JSONValueDecoder().decode(KittensFeature.State.self, from: JSONValue.parse(snapshot)) == Self.state)
  }

  @Test func aRestoredStateComesBackByteForByteFromAWorker() throws {
    // A debug build on a loaded machine takes seconds for 100,000 URLs: more than the usual timeout.
    #expect(try Self.roundTrip(.worker(executable: HostProcess.executable, callTimeout: 300)) == Self.json)
  }

  @Test func aJournaledStateIsRestoredAsItWasWritten() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kittens-large-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let plugin = try PluginLoader.load(PluginPaths.library("Kittens"))
    let journal = try SessionJournal.create(at: "\(folder)/s.jsonl", plugin: plugin, config: "{}")
    try journal.recordInitialState(Self.json)
    journal.close()
    #expect(try Journal.read(path: "\(folder)/s.jsonl").restorePoint().state == Self.json)
  }
}
