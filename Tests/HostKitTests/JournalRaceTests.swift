import FeatureTesting
import Foundation
import HostKit
import Testing

/// Two host processes starting the same new session a few milliseconds apart: one gets the
/// session, the other is told it is in use, and no step the first one recorded is lost.
@Suite("Two hosts racing for one new session")
struct JournalRaceTests {
  static let tries = 100

  /// Starts `host --session race` (the main flow) with empty stdin in `state`.
  static func start(state: String) throws -> RunningChild {
    var process = ChildProcess(
      HostProcess.executable, arguments: ["--session", "race"],
      environment: HostProcess.environment(adding: ["XDG_STATE_HOME": state]))
    process.standardOutput = .discard
    return try process.start()
  }

  static func finish(_ started: RunningChild) -> (status: Int32, stderr: String) {
    let result = started.finish(until: ContinuousClock.now + .seconds(120))
    return (result.termination.shellStatus, result.errorText)
  }

  @Test func theSecondHostIsRefusedAndTheFirstHostsStepIsKept() throws {
    var refused = 0
    for attempt in 0..<Self.tries {
      // given a fresh state folder and two hosts started 0-9 ms apart (the stagger is the
      // scenario, not a synchronization: any interleaving must keep the step)
      let state = try FixturePlugin.temporaryFolder()
      defer { try? FileManager.default.removeItem(atPath: state) }
      let first = try Self.start(state: state)
      usleep(useconds_t(attempt % 10) * 1000)
      let second = try Self.start(state: state)
      // when both are done
      let results = [Self.finish(first), Self.finish(second)]
      // then each one either ran (restoring what the other made, even one made after it looked)
      // or was told the session is in use
      let navigation = "\(state)/featurehost/race.d/navigation.jsonl"
      let inUse =
        "error: the journal '\(navigation)' is in use by another host process\n"
        + "help: quit the other 'host run' first, or use another session name\n"
      for result in results {
        #expect(
          result.status == 0 || (result.status == 1 && result.stderr == inUse),
          "try \(attempt): \(result)")
      }
      #expect(results.contains { $0.status == 0 }, "try \(attempt): \(results)")
      refused += results.filter { $0.stderr == inUse }.count
      // and the step the winner recorded (and was acknowledged) is in the journal, once
      let (flow, records, torn) = try NavigationJournal.read(at: navigation)
      #expect(flow == "main")
      #expect(!torn)
      #expect(records.map(\.step) == ["start"], "try \(attempt): a recorded step was lost")
      #expect(records.first?.frames.first?.features.first?.journal == "race.jsonl")
    }
    // the race was run, not sidestepped: most second hosts came while the first held the session
    #expect(refused > 0)
  }
}
