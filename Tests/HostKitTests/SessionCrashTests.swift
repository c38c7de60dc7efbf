import FeatureTesting
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `kill -9` of the host at random moments: every action whose state the user saw survives.
@Suite("Sessions survive kill -9")
struct SessionCrashTests {
  /// Starts `host run counter --session crash` with its state in `state`.
  static func start(state: String) throws -> LiveHost {
    try LiveHost(["run", "counter", "--session", "crash"], environment: ["XDG_STATE_HOME": state])
  }

  /// The count in a state line.
  static func count(in line: String) -> Int? {
    guard let range = line.range(of: "\"count\":") else { return nil }
    return Int(line[range.upperBound...].prefix { $0.isNumber || $0 == "-" })
  }

  /// Reads the host's stdout up to its next state line; returns the count in it.
  static func nextCount(_ host: LiveHost) throws -> Int {
    let line = try host.line(startingWith: "{\"clicks\":")
    guard let count = count(in: line) else { throw FixtureError("no count in '\(line)'") }
    return count
  }

  @Test func everyActionWhoseStateWasSeenSurvivesKill9AtRandomMoments() async throws {
    let state = try FixturePlugin.temporaryFolder()
    var generator = SystemRandomNumberGenerator()
    var seen = 0
    for _ in 0..<25 {
      let host = try Self.start(state: state)
      // The restored count is at least what was seen before the last kill.
      host.send(":state\n")
      let restored = try Self.nextCount(host)
      #expect(restored >= seen, "restored \(restored), but \(seen) was seen before the kill")
      seen = restored
      let shown = Int.random(in: 1...300, using: &generator)
      host.send(String(repeating: "increment\n", count: shown) + ":state\n")
      seen = try Self.nextCount(host)
      #expect(seen == restored + shown)
      // More actions in flight, then the kill lands somewhere among them.
      host.send(String(repeating: "increment\n", count: Int.random(in: 0...500, using: &generator)))
      host.kill()
    }
    let last = try await HostProcess.run(
      ["run", "counter", "--session", "crash"], input: ":state\n", environment: ["XDG_STATE_HOME": state])
    #expect(last.status == 0)
    #expect((Self.count(in: last.stdout) ?? -1) >= seen)
  }
}
