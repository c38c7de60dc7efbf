import FeatureTesting
import Testing

/// `:history` lists exactly the seqs `:goto` takes.
@Suite struct HistoryCLITests {
  @Test func historyListsTheStartEachActionAndEachTravelAndGotoTakesEveryOne() async throws {
    // given two increments, the second undone
    let result = try await HostProcess.run(
      ["run", "counter"],
      input: "increment\nincrement\n:undo\n:history\n:goto 0\n:goto 1\n:goto 2\n:goto 3\n:goto 4\n:goto 10\n")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    // then the history shows seq 0 to 4, the undone increment marked
    #expect(
      Array(lines.prefix(6)) == [
        "back at seq 2",
        "     0  start     (the state before the first action)",
        #"     1  lifecycle {"type":"created"}"#,
        #"     2  user      {"type":"increment"}"#,
        #"     3  user      {"type":"increment"}  (not in the current state)"#,
        "     4  undo      back to seq 2",
      ])
    // and ':goto' takes every one of them, and only a seq past the journal's end is refused
    #expect(Array(lines.dropFirst(6).prefix(5)) == (0...4).map { "at seq \($0)" })
    let errors = result.stderr.split(separator: "\n").map(String.init)
    #expect(errors.count == 2, "\(result.stderr)")
    #expect(errors.first?.hasPrefix("error: line 10: there is no seq 10 in journal '") == true)
    #expect(errors.last == "help: pick a seq from 0 to 9; ':history' lists them")
  }
}
