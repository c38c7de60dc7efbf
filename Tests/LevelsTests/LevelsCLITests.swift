import FeatureTesting
import Foundation
import Testing

@Suite("Levels in the terminal")
struct LevelsCLITests {
  @Test func settleThenStateShowsTheLevelsMetAtFifteen() async throws {
    let result = try await HostProcess.run(["run", "levels"], input: ":settle\n:state\n")
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(result.stdout.hasPrefix("{\"left\":15,\"right\":15}\n"))
    #expect(result.stdout.contains("Levels — settled at 15"))
  }

  @Test func aRunawayRegulationIsPausedAndTheHostStaysUsable() async throws {
    let result = try await HostProcess.run(
      ["run", "levels", "--config", "interval=0", "--max-feedback-steps", "500"],
      input: "set left=0 right=2000\n:settle\n:state\n:quit\n")
    #expect(result.status == 0)
    #expect(result.stderr.contains("error: feature 'levels' has not settled after 500 feedback steps; paused it"))
    #expect(result.stderr.contains("note: levels is paused by the runaway guard; ':resume' to go on"))
    // 500 feedback steps, alternating left and right, then the guard trips and :state still answers.
    #expect(result.stdout.hasPrefix("{\"left\":250,\"right\":1750}\n"))
  }
}
