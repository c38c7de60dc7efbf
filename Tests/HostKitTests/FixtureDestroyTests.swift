import FeatureTesting
import Foundation
import HostKit
import Testing

/// A feature that is stopped is destroyed at once: the C fixture records `destroy` in a log file.
@Suite("Stopped features are destroyed")
struct FixtureDestroyTests {
  /// The lines of the destroy log at `path` (none when it does not exist yet).
  static func destroyLines(_ path: String) -> [String] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").map(String.init)
  }

  @Test func stoppingAStoreDestroysItsInstance() throws {
    // given a started store over the fixture, told where to log its destroy
    let log = "\(try FixturePlugin.temporaryFolder())/destroy.log"
    let plugin = try PluginLoader.load(try FixturePlugin.path())
    let store = try Store(plugin: plugin, config: #"{"destroy_log":"\#(log)"}"#, observer: { _ in })
    try store.start()
    #expect(Self.destroyLines(log).isEmpty)
    // when it stops
    store.stop()
    // then its instance was destroyed, once
    let lines = Self.destroyLines(log)
    #expect(lines.count == 1)
    #expect(lines.first?.hasPrefix("destroy ") == true)
  }

  /// A running `host --plugins FOLDER run counter`, fed and read as it runs.
  final class LiveHost {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let errors: String
    private(set) var printed = ""

    init(plugins: String, environment extra: [String: String]) throws {
      errors = "\(plugins)/stderr.txt"
      guard FileManager.default.createFile(atPath: errors, contents: nil) else {
        throw FixtureError("cannot create \(errors)")
      }
      process.executableURL = URL(fileURLWithPath: HostProcess.executable)
      process.arguments = ["--plugins", plugins, "run", "counter"]
      var environment = ProcessInfo.processInfo.environment
      environment["FEATUREHOST_PLUGIN_PATH"] = nil
      environment["NO_COLOR"] = "1"
      for (key, value) in extra { environment[key] = value }
      process.environment = environment
      process.standardInput = input
      process.standardOutput = output
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
      try process.run()
    }

    func send(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// Reads stdout until it holds `text` after `after`; throws if the host closes stdout first.
    func read(until text: String, after: String) throws {
      while true {
        if let start = printed.range(of: after), printed[start.upperBound...].contains(text) { return }
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else {
          let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
          throw FixtureError("the host closed stdout before printing '\(text)'; stdout: \(printed) stderr: \(stderr)")
        }
        printed += String(decoding: chunk, as: UTF8.self)
      }
    }

    /// Sends `:quit`, closes stdin and waits for the exit status.
    func quit() throws -> Int32 {
      send(":quit\n")
      try input.fileHandleForWriting.close()
      _ = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return process.terminationStatus
    }
  }

  @Test func aFeaturePoppedWithBackIsDestroyedWhileTheHostRuns() throws {
    // given a host running the counter, with the fixture in a trusted plugin folder
    let plugins = try FixturePlugin.temporaryFolder()
    let library = "\(plugins)/libfixture.so"
    try FixturePlugin.build([], into: library)
    // The loader refuses group- or other-writable plugins, whatever the umask made.
    #expect(chmod(library, 0o755) == 0)
    let log = "\(plugins)/destroy.log"
    let host = try LiveHost(plugins: plugins, environment: ["FIXTURE_DESTROY_LOG": log])
    // when the fixture is opened over the counter, then popped, with stdin still open
    host.send(":open fixture\n")
    try host.read(until: "count: 0", after: "fixture ")
    #expect(Self.destroyLines(log).isEmpty)
    host.send(":back\n")
    // then once the counter is revealed (the coordinator retires the popped feature first)
    try host.read(until: "Counter\n  count:  0\n", after: "fixture ")
    // the fixture's instance was destroyed exactly once, while the host is still running
    #expect(host.process.isRunning)
    #expect(Self.destroyLines(log) == ["destroy 1"])
    // and the host still quits cleanly, destroying nothing more
    #expect(try host.quit() == 0)
    #expect(Self.destroyLines(log) == ["destroy 1"])
  }
}
