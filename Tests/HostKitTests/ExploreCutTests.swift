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

/// The run's table of lines already parsed, kept by feature.
@Suite("Explore: lines parsed once")
struct ExploreParsedLinesTests {
  @Test func aLineIsFoundForTheFeatureItWasTypedIntoOnly() {
    var parsed = ExploreRun.ParsedLines()
    #expect(parsed.action(typed: "increment", into: "counter") == nil)
    parsed.keep(#"{"type":"increment"}"#, typed: "increment", into: "counter", limit: 10)
    parsed.keep(#"{"type":"reset"}"#, typed: "reset", into: "tally", limit: 10)
    // Back and forth between the features, each keeps its own.
    #expect(parsed.action(typed: "increment", into: "counter") == #"{"type":"increment"}"#)
    #expect(parsed.action(typed: "increment", into: "tally") == nil)
    #expect(parsed.action(typed: "reset", into: "tally") == #"{"type":"reset"}"#)
    #expect(parsed.action(typed: "reset", into: "counter") == nil)
    #expect(parsed.action(typed: "increment", into: "counter") == #"{"type":"increment"}"#)
  }

  @Test func pastTheLimitEveryTableStartsAgain() {
    var parsed = ExploreRun.ParsedLines()
    parsed.keep("a", typed: "a", into: "one", limit: 2)
    parsed.keep("b", typed: "b", into: "two", limit: 2)
    parsed.keep("c", typed: "c", into: "two", limit: 2)
    #expect(parsed.action(typed: "c", into: "two") == "c")
    #expect(parsed.action(typed: "b", into: "two") == nil)
    #expect(parsed.action(typed: "a", into: "one") == nil)
  }
}
