import FeatureTesting
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `kill -9` of the host at random moments: every action whose state the user saw survives.
@Suite("Sessions survive kill -9")
struct SessionCrashTests {
  /// A running `host run counter --session crash`, fed and read line by line.
  final class LiveHost {
    let child: RunningChild
    private var buffer: [UInt8] = []

    init(state: String) throws {
      var process = ChildProcess(
        HostProcess.executable, arguments: ["run", "counter", "--session", "crash"],
        environment: HostProcess.environment(adding: ["XDG_STATE_HOME": state]))
      process.standardInput = .pipe
      process.standardError = .discard
      child = try process.start()
    }

    func send(_ text: String) { child.write(text.utf8) }

    /// Reads stdout up to the next state line and returns its count.
    func nextCount() throws -> Int {
      let deadline = ContinuousClock.now + .seconds(120)
      while true {
        if let newline = buffer.firstIndex(of: 10) {
          let line = String(decoding: buffer[..<newline], as: UTF8.self)
          buffer.removeSubrange(...newline)
          if line.hasPrefix("{\"clicks\":"), let count = Self.count(in: line) { return count }
          continue
        }
        guard !child.outputEnded(STDOUT_FILENO) else {
          throw FixtureError("the host closed stdout before printing a state")
        }
        guard child.pump(until: deadline) else { throw FixtureError("no state from the host within 120 s") }
        buffer += child.take(STDOUT_FILENO)
      }
    }

    static func count(in line: String) -> Int? {
      guard let range = line.range(of: "\"count\":") else { return nil }
      return Int(line[range.upperBound...].prefix { $0.isNumber || $0 == "-" })
    }

    func kill() {
      child.signalGroup(SIGKILL)
      _ = child.finish(until: nil)
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
