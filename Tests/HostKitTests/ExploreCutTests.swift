import HostKit
import Testing

@testable import host

/// Where a run is cut at a violation: after the step the stores had taken when they reached it,
/// counting actions and travels (a travel the run did not wait for reaches its state on the
/// store thread like an action), not the commands made only once the stores were settled.
@Suite("Cutting an exploration at its violation")
struct ExploreCutTests {
  static let steps: [ExploreStep] = [
    .action(type: "add", arguments: []), .command(":undo"), .command(":open levels"),
    .action(type: "reset", arguments: []), .command(":goto 1"), .command(":back"),
    .action(type: "add", arguments: []),
  ]

  @Test("a travel counts as a step, another command does not")
  func travelsCountOtherCommandsDoNot() {
    #expect(ExploreRun.cut(Self.steps, afterSteps: 2).map(\.line) == ["add", ":undo"])
    #expect(ExploreRun.cut(Self.steps, afterSteps: 3).map(\.line) == ["add", ":undo", ":open levels", "reset"])
    #expect(
      ExploreRun.cut(Self.steps, afterSteps: 4).map(\.line) == ["add", ":undo", ":open levels", "reset", ":goto 1"])
  }

  @Test("nothing counted yet or past the end: every step")
  func outOfRangeKeepsEverything() {
    #expect(ExploreRun.cut(Self.steps, afterSteps: 0) == Self.steps)
    #expect(ExploreRun.cut(Self.steps, afterSteps: 9) == Self.steps)
  }
}
