import FeatureJSON
import HostKit
import Testing

/// The generator and the shrinker on their own: the same seed draws the same steps, and a
/// failing sequence shrinks to the shortest one with the simplest values.
@Suite("Exploration steps: drawing and shrinking")
struct StepShrinkerTests {
  static let manifest = Manifest(
    id: "tally", name: "Tally", version: "1.0.0", description: "",
    actions: [
      ActionSpec("add", help: "", arguments: [ArgumentSpec("amount", .integer, help: "from 1 to 9")]),
      ActionSpec("reset", help: ""),
    ])

  static func add(_ amount: Int64) -> ExploreStep {
    .action(type: "add", arguments: [.init(name: "amount", value: .number(.int(amount)))])
  }

  @Test("the same seed draws the same steps, and another seed others")
  func theSameSeedDrawsTheSameSteps() {
    let generator = StepGenerator(manifest: Self.manifest)
    func draw(_ seed: UInt64) -> [ExploreStep] {
      var random = SeededRandom(seed: seed)
      return (1...200).map { generator.next(using: &random, seqs: $0) }
    }
    #expect(draw(7) == draw(7))
    #expect(draw(7) != draw(8))
    // every action, the help's bounds and the edges past them are drawn
    let lines = Set(draw(7).map(\.line))
    for line in ["reset", "add amount=1", "add amount=9", "add amount=10", "add amount=0", "add amount=2147483647"] {
      #expect(lines.contains(line), "\(line) never drawn")
    }
  }

  @Test("a failure shrinks to at most one step more than the shortest sequence, with simpler values")
  func aFailureShrinksToTheShortestSequence() {
    let generator = StepGenerator(manifest: Self.manifest)
    // fails when the adds since the last reset pass 20
    func fails(_ steps: [ExploreStep]) -> Bool {
      var total: Int64 = 0
      for step in steps {
        guard case .action(let type, let arguments) = step else { continue }
        if type == "reset" { total = 0 }
        if let amount = arguments.first?.value.intValue, (1...9).contains(amount) { total += amount }
        if total > 20 { return true }
      }
      return false
    }
    let long = [Self.add(3), .action(type: "reset", arguments: [])] + (0..<40).map { Self.add(Int64($0 % 9 + 1)) }
    #expect(fails(long))
    var shrinker = StepShrinker(simpler: generator.simpler)
    let shrunk = shrinker.shrink(long, fails: fails)
    #expect(fails(shrunk))
    // The shortest is three adds (9, 9, 3); values only get simpler, so one more may be left.
    #expect(shrunk.count >= 3 && shrunk.count <= 4, "\(shrunk)")
    #expect(shrunk.allSatisfy { $0.line.hasPrefix("add amount=") })
  }

  @Test("a view with a control character or a replaced byte is unclean; text and line breaks are clean")
  func viewCleanliness() {
    #expect(SessionRuntime.uncleanness(of: "Counter\n  count: 1 ü漢") == nil)
    #expect(SessionRuntime.uncleanness(of: "\u{1B}[1mTally") == "holds the control character U+001B")
    #expect(SessionRuntime.uncleanness(of: "bad \u{FFFD}") == "is not valid UTF-8")
  }
}
