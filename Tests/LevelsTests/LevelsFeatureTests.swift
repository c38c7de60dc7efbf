import FeatureKit
import LevelsFeature
import Testing

@Suite("Levels reducer and feedbacks")
struct LevelsFeatureTests {
  let feature = LevelsFeature()

  /// Runs the loop as the host does with a zero interval: FIFO, feedback after each change.
  func regulate(from start: LevelsFeature.State) throws -> [LevelsFeature.State] {
    var state = start
    var queue: [LevelsFeature.Action] = feature.feedback(state).sentActions
    var states: [LevelsFeature.State] = []
    var steps = 0
    while !queue.isEmpty, steps < 10_000 {
      let before = state
      _ = try feature.reduce(into: &state, action: queue.removeFirst())
      if state != before {
        states.append(state)
        queue += feature.feedback(state).sentActions
      }
      steps += 1
    }
    return states
  }

  @Test func fromTenAndTwentyTheLevelsMeetAtFifteen() throws {
    let states = try regulate(from: feature.initialState())
    #expect(states.last == LevelsFeature.State(left: 15, right: 15))
    #expect(states.count == 10)
    #expect(states.prefix(2) == [LevelsFeature.State(left: 11, right: 20), LevelsFeature.State(left: 11, right: 19)])
  }

  @Test func theReducerChangesNothingOnceTheLevelsAreEqual() throws {
    for action: LevelsFeature.Action in [.increaseLeft, .decreaseLeft, .increaseRight, .decreaseRight] {
      var state = LevelsFeature.State(left: 7, right: 7)
      _ = try feature.reduce(into: &state, action: action)
      #expect(state == LevelsFeature.State(left: 7, right: 7))
    }
    #expect(feature.feedback(LevelsFeature.State(left: 7, right: 7)).sentActions.isEmpty)
  }

  @Test func aStepNeverPushesTheLevelsApart() throws {
    var state = LevelsFeature.State(left: 20, right: 10)
    _ = try feature.reduce(into: &state, action: .increaseLeft)
    _ = try feature.reduce(into: &state, action: .decreaseRight)
    #expect(state == LevelsFeature.State(left: 20, right: 10))
  }

  @Test func theFeedbacksRegulateInBothDirections() throws {
    #expect(
      try regulate(from: LevelsFeature.State(left: 100, right: 0)).last == LevelsFeature.State(left: 50, right: 50))
    #expect(try regulate(from: LevelsFeature.State(left: -3, right: 4)).last == LevelsFeature.State(left: 1, right: 1))
  }

  @Test func setOutsideTheLimitIsRefused() {
    var state = LevelsFeature.State(left: 1, right: 2)
    #expect(throws: FeatureError.self) {
      _ = try feature.reduce(into: &state, action: .set(left: 0, right: Int.min))
    }
    #expect(state == LevelsFeature.State(left: 1, right: 2))
  }

  @Test func theViewDrawsBothLevelsAsBars() {
    #expect(
      feature.render(LevelsFeature.State(left: 10, right: 20)) == [
        "Levels — regulating...",
        "  left  10 " + String(repeating: "█", count: 20),
        "  right 20 " + String(repeating: "█", count: 40),
      ])
    #expect(feature.render(LevelsFeature.State(left: 15, right: 15)).first == "Levels — settled at 15")
  }

  @Test func theScaleHoldsThroughARegulationSo15IsShorterThan20() {
    // given a regulation from 10 and 20, when it settles at 15, then 15 is three quarters of 20
    let settled = feature.render(LevelsFeature.State(left: 15, right: 15))
    #expect(settled[1] == "  left  15 " + String(repeating: "█", count: 30))
    let midway = feature.render(LevelsFeature.State(left: 13, right: 17))
    #expect(midway[2] == "  right 17 " + String(repeating: "█", count: 34))
    #expect(LevelsFeature.scale(for: 0) == 1)
    #expect(LevelsFeature.scale(for: 3) == 5)
    #expect(LevelsFeature.scale(for: 20) == 20)
    #expect(LevelsFeature.scale(for: 21) == 50)
    #expect(LevelsFeature.scale(for: 1_000_000) == 1_000_000)
  }

  @Test func theIntervalComesFromConfigAndIsChecked() throws {
    #expect(try LevelsFeature(config: FeatureConfig(values: ["interval": 0])).interval == .zero)
    #expect(throws: FeatureError.self) { try LevelsFeature(config: FeatureConfig(values: ["interval": -1])) }
    #expect(throws: FeatureError.self) { try LevelsFeature(config: FeatureConfig(values: ["interval": "soon"])) }
  }
}

extension Effect {
  /// The actions a `.send` effect sends, for tests that run feedbacks by hand.
  var sentActions: [Action] { sent }
}

@Test func barsShrinkToTheColumnsGivenAndKeepTheScale() throws {
  let narrow = LevelsFeature(columns: 20)
  let lines = narrow.render(.init(left: 15, right: 20))
  // 20 columns less "  right " and "20 ": a full bar is 9 cells; 15 of 20 is 6.
  #expect(lines[1] == "  left  15 " + String(repeating: "█", count: 6))
  #expect(lines[2] == "  right 20 " + String(repeating: "█", count: 9))
  #expect(lines.dropFirst().allSatisfy { $0.count <= 20 })
  #expect(try LevelsFeature(config: FeatureConfig(values: ["columns": 30])).columns == 30)
  #expect(throws: FeatureError.self) { try LevelsFeature(config: FeatureConfig(values: ["columns": 0])) }
  #expect(LevelsFeature().render(.init(left: 15, right: 20))[1].count == "  left  15 ".count + 30)
}
