/// Shrinks a failing sequence of steps to a short one that still fails the same way: drops
/// chunks (halves, then quarters, down to single steps), then simplifies argument values.
///
/// `fails` runs a candidate and says whether it fails the way the original did; it is the whole
/// cost, so candidates are tried in an order that removes the most first.
public struct StepShrinker {
  public typealias Check = ([ExploreStep]) -> Bool

  private let simpler: (ExploreStep) -> [ExploreStep]
  /// The most candidates run, so a shrink ends even when each run is slow.
  private let budget: Int
  public private(set) var attempts = 0

  public init(simpler: @escaping (ExploreStep) -> [ExploreStep], budget: Int = 2_000) {
    self.simpler = simpler
    self.budget = budget
  }

  /// The shortest and simplest sequence found that `fails`; `steps` must fail.
  public mutating func shrink(_ steps: [ExploreStep], fails: Check) -> [ExploreStep] {
    var current = steps
    var improved = true
    while improved && attempts < budget {
      improved = false
      // Chunks: from half the sequence down to one step, from the end back (later steps are
      // the likelier noise after the failure's cause).
      var size = max(1, current.count / 2)
      while size >= 1 && attempts < budget {
        var start = current.count - size
        var removedAny = false
        while start >= 0 && attempts < budget {
          var candidate = current
          candidate.removeSubrange(start..<min(start + size, candidate.count))
          attempts += 1
          if !candidate.isEmpty && fails(candidate) {
            current = candidate
            removedAny = true
            improved = true
            start = min(start, current.count) - size
          } else {
            start -= size
          }
        }
        if !removedAny { size /= 2 }
      }
      // Arguments: each step's simpler values, simplest first.
      for index in current.indices where attempts < budget {
        for candidateStep in simpler(current[index]) where attempts < budget {
          var candidate = current
          candidate[index] = candidateStep
          attempts += 1
          if fails(candidate) {
            current = candidate
            improved = true
            break
          }
        }
      }
    }
    return current
  }
}
