import FeatureTesting
import Foundation
import Testing

/// `kill -9` of the host at random moments: every action whose state the user saw survives.
@Suite("Sessions survive kill -9")
struct SessionCrashTests {
  /// A running `host run counter --session crash`, fed and read line by line.
  final class LiveHost {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    private var buffer = Data()

    init(state: String) throws {
      process.executableURL = URL(fileURLWithPath: HostProcess.executable)
      process.arguments = ["run", "counter", "--session", "crash"]
      var environment = ProcessInfo.processInfo.environment
      environment["XDG_STATE_HOME"] = state
      environment["FEATUREHOST_PLUGIN_PATH"] = nil
      process.environment = environment
      process.standardInput = input
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
    }

    func send(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// Reads stdout up to the next state line and returns its count.
    func nextCount() throws -> Int {
      while true {
        if let newline = buffer.firstIndex(of: 10) {
          let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
          buffer.removeSubrange(buffer.startIndex...newline)
          if line.hasPrefix("{\"clicks\":"), let count = Self.count(in: line) { return count }
          continue
        }
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { throw FixtureError("the host closed stdout before printing a state") }
        buffer.append(chunk)
      }
    }

    static func count(in line: String) -> Int? {
      guard let range = line.range(of: "\"count\":") else { return nil }
      return Int(line[range.upperBound...].prefix { $0.isNumber || $0 == "-" })
    }

    func kill() {
      Glibc.kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  @Test func everyActionWhoseStateWasSeenSurvivesKill9AtRandomMoments() throws {
    let state = try FixturePlugin.temporaryFolder()
    var generator = SystemRandomNumberGenerator()
    var seen = 0
    for _ in 0..<25 {
      let host = try LiveHost(state: state)
      // The restored count is at least what was seen before the last kill.
      host.send(":state\n")
      let restored = try host.nextCount()
      #expect(restored >= seen, "restored \(restored), but \(seen) was seen before the kill")
      seen = restored
      let shown = Int.random(in: 1...300, using: &generator)
      host.send(String(repeating: "increment\n", count: shown) + ":state\n")
      seen = try host.nextCount()
      #expect(seen == restored + shown)
      // More actions in flight, then the kill lands somewhere among them.
      host.send(String(repeating: "increment\n", count: Int.random(in: 0...500, using: &generator)))
      host.kill()
    }
    let last = try HostProcess.run(
      ["run", "counter", "--session", "crash"], input: ":state\n", environment: ["XDG_STATE_HOME": state])
    #expect(last.status == 0)
    #expect((LiveHost.count(in: last.stdout) ?? -1) >= seen)
  }
}
