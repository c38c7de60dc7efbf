import Testing

@testable import HostKit

/// The probe cache's table against `Set<String>` as the model: the same answers for every
/// insert, lookup and removal, through growth and the runs that colliding hashes make.
@Suite("The probe cache's state table")
struct StateTableTests {
  @Test("random inserts, lookups and removals answer as a Set does, through growth")
  func answersAsASetDoes() {
    var random = SeededRandom(seed: 7)
    var table = StateTable()
    var model = Set<String>()
    // Few distinct states, so inserts meet states already there and removals find them.
    func state() -> String {
      let count = Int.random(in: 0..<3_000, using: &random)
      return Bool.random(using: &random) ? #"{"count":\#(count)}"# : String(repeating: "x", count: count % 40)
    }
    for _ in 0..<40_000 {
      let picked = state()
      let (answer, expected): (Bool, Bool)
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<6: (answer, expected) = (table.insert(picked), model.insert(picked).inserted)
      case 6..<8: (answer, expected) = (table.remove(picked), model.remove(picked) != nil)
      default: (answer, expected) = (table.contains(picked), model.contains(picked))
      }
      #expect(answer == expected, "\(picked)")
    }
    #expect(table.count == model.count)
    #expect(model.count > 1_024, "the table grew several times")
    for state in model { #expect(table.contains(state), "\(state) kept") }
    table.removeAll()
    #expect(table.count == 0 && !model.contains { table.contains($0) })
  }

  @Test("a removal in the middle of a run keeps the states after it findable")
  func removalInsideARunKeepsTheRestFindable() throws {
    // States whose hashes share their low bits land in one run of slots.
    var byHome: [Int: [String]] = [:]
    for number in 0..<20_000 {
      let state = "s\(number)"
      byHome[Int(truncatingIfNeeded: StateTable.hash(state)) & 1023, default: []].append(state)
    }
    let run = byHome.values.max { $0.count < $1.count } ?? []
    try #require(run.count >= 4)
    var table = StateTable()
    for state in run {
      let inserted = table.insert(state)
      #expect(inserted)
    }
    let removed = table.remove(run[1])
    #expect(removed)
    #expect(!table.contains(run[1]))
    for state in run where state != run[1] { #expect(table.contains(state), "\(state) still found") }
    let back = table.insert(run[1])
    #expect(back, "it can come back")
  }
}
