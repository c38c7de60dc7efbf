import FeatureTesting
import Foundation
import Testing

/// In a pipe every error names its input line, and errors come out in input order, the plugin's
/// refusals (reported by its store, later than the line was read) among the host's own.
@Suite struct PipeErrorTests {
  /// The C fixture's tally, which refuses `reset` at a total of 0 and `add` outside 1 to 9.
  static func tallyFolder() throws -> String {
    let library = try FixturePlugin.path(["FIXTURE_TALLY", "RESET_NEEDS_A_TOTAL"], name: "libtally.so")
    return URL(fileURLWithPath: library).deletingLastPathComponent().path
  }

  static let refusedReset = """
    tally refused the user action {"type":"reset"}: tally: nothing to reset
    help: the state is unchanged; ':help' lists the actions and their arguments
    """

  @Test(arguments: ["process", "none"])
  func errorsCarryTheirLineNumbersInInputOrderRefusalsIncluded(isolation: String) async throws {
    // given a busy feature: 300 actions queued before the first bad line, so its refusals
    // arrive late unless the host waits for them
    let busy = Array(repeating: "add amount=1", count: 300)
    let input =
      busy + [
        "reset",  // 301: applied (total 300 -> 0)
        "reset",  // 302: refused by the plugin (a bare word: the pipe's fast path)
        "bogus",  // 303: unknown action
        "add amount=12",  // 304: refused by the plugin
        "add amount=x",  // 305: a bad argument
        "",  // 306
        "# a comment",  // 307
        "add amount=2",  // 308
        ":nope",  // 309: unknown command
        "reset",  // 310: applied
        #"{"type":"reset"}"#,  // 311: refused by the plugin (JSON: the general path)
        "add amount=4",  // 312
      ]
    // when they are piped in
    let result = try await HostProcess.run(
      ["--plugins", try Self.tallyFolder(), "run", "tally", "--isolation", isolation],
      input: input.joined(separator: "\n") + "\n")
    // then each error names its line, in order
    #expect(result.status == 0)
    #expect(
      result.stderr == """
        error: line 302: \(Self.refusedReset)
        error: line 303: unknown action 'bogus' for tally
        help: actions: add, reset, ping (':help' explains them)
        error: line 304: tally refused the user action {"amount":12,"type":"add"}: tally: add needs amount=<integer from 1 to 9>
        help: the state is unchanged; ':help' lists the actions and their arguments
        error: line 305: argument amount='x' of 'add' must be an integer
        help: amount: how much, 1 to 9
        error: line 309: unknown command ':nope'
        help: did you mean ':open'? commands: :help, :state, :view, :settle, :resume, :check, :history, :undo, :redo, :goto, :save, :save!, :load, :open, :back, :focus, :reload, :quit
        error: line 311: \(Self.refusedReset)

        """)
    #expect(result.stdout.hasSuffix("total: 4\n  pongs: 0\n"))
  }

  @Test func aSwiftFeaturesRefusalOfAValueNamesItsLine() async throws {
    let input = [
      "set left=3 right=3",
      "set left=5 right=2000000",
      "set left=-3",
      "set left=4 right=4",
      "set left=2000001 right=0",
    ]
    let result = try await HostProcess.run(
      ["run", "levels", "--config", "interval=0"], input: input.joined(separator: "\n") + "\n")
    #expect(result.status == 0)
    #expect(
      result.stderr == """
        error: line 2: levels refused the user action {"left":5,"right":2000000,"type":"set"}: action 'set' of levels was refused: levels 5 and 2000000 must lie between -2000 and 2000
        help: the state is unchanged; ':help' lists the actions and their arguments
        error: line 3: 'set' needs right=<integer>
        help: usage: set left=<integer> right=<integer>
        error: line 5: levels refused the user action {"left":2000001,"right":0,"type":"set"}: action 'set' of levels was refused: levels 2000001 and 0 must lie between -2000 and 2000
        help: the state is unchanged; ':help' lists the actions and their arguments

        """)
  }

  @Test func aLineTooLongNamesItsLineInOrderWithTheOthers() async throws {
    let input = ["bogus", String(repeating: "x", count: 20), "reset"]
    let result = try await HostProcess.run(
      ["--plugins", try Self.tallyFolder(), "run", "tally", "--max-line-bytes", "10"],
      input: input.joined(separator: "\n") + "\n")
    #expect(
      result.stderr == """
        error: line 1: unknown action 'bogus' for tally
        help: actions: add, reset, ping (':help' explains them)
        error: line 2: the line is 20 bytes, more than the 10 a line may have; it was skipped
        help: an action or a command fits on one short line; a big state goes in a file (':load FILE'), or raise the limit with --max-line-bytes
        error: line 3: \(Self.refusedReset)

        """)
  }

  @Test func atATerminalAnErrorHasNoLineNumber() throws {
    let host = try PseudoTerminal(
      ["--plugins", try Self.tallyFolder(), "run", "tally"], environment: ["NO_COLOR": "1"])
    try host.waitFor("tally> ")
    try host.enter(
      "reset", thenWaitFor: "error: tally refused the user action {\"type\":\"reset\"}: tally: nothing to reset")
    try host.enter("bogus", thenWaitFor: "error: unknown action 'bogus' for tally")
    _ = try host.quit()
    #expect(!host.all.contains("line "))
  }
}
