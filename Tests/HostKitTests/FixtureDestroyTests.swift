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

    /// Reads stdout until it holds `marker`, and forgets what was read up to its end.
    func read(through marker: String) throws {
      while true {
        if let found = printed.range(of: marker) {
          printed = String(printed[found.upperBound...])
          return
        }
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { throw FixtureError("the host closed stdout before printing '\(marker)'") }
        printed += String(decoding: chunk, as: UTF8.self)
      }
    }

    /// The host's resident memory, in bytes (Linux: /proc/PID/statm).
    func residentBytes() throws -> Int {
      let statm = try String(contentsOfFile: "/proc/\(process.processIdentifier)/statm", encoding: .utf8)
      let fields = statm.split(separator: " ")
      guard fields.count > 1, let pages = Int(fields[1]) else { throw FixtureError("cannot read statm: \(statm)") }
      return pages * sysconf(Int32(_SC_PAGESIZE))
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

  @Test func tenThousandOpenBackCyclesKeepTheHostsMemoryFlat() throws {
    // given a host running the counter, warmed up by 1,000 open/back cycles
    let host = try LiveHost(plugins: try FixturePlugin.temporaryFolder(), environment: [:])
    let state = #"{"clicks":0,"count":0}"#
    func cycles(_ count: Int) throws {
      // In batches, reading as it goes: a host blocked on a full stdout reads no more input.
      for _ in 0..<(count / 100) {
        host.send(String(repeating: ":open counter\n:back\n", count: 100) + ":state\n")
        try host.read(through: state)
      }
    }
    try cycles(1_000)
    let before = try host.residentBytes()
    // when 10,000 more counters are opened over it and popped
    try cycles(10_000)
    let after = try host.residentBytes()
    // then every popped store and instance was freed: resident memory grew by 2 MB at most
    #expect(after - before <= 2 << 20, "resident memory grew from \(before) to \(after) bytes")
    #expect(try host.quit() == 0)
  }
}
