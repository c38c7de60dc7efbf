import FeatureTesting
import Foundation
import Testing

/// `:quit` and Ctrl-D while a plugin call is stuck end the run at once, not at the call timeout:
/// the stuck worker is ended, nothing typed after the stuck line is applied, and the journal is
/// committed.
@Suite(.serialized, .enabled(if: TmuxScreen.isAvailable))
struct StuckQuitTests {
  /// A plugin folder with the faults fixture as `tally` (`hang` never returns in dispatch).
  static func plugins() throws -> String {
    let folder = try FixturePlugin.temporaryFolder()
    try FileManager.default.copyItem(
      atPath: try FixturePlugin.path(["FIXTURE_TALLY", "FIXTURE_FAULTS"]), toPath: "\(folder)/libtally.so")
    return folder
  }

  /// Starts a `tally` session at a total of 2, then sends it `hang` and `add amount=1`. The call
  /// timeout is ten minutes: a run that left only at the timeout would outlast `waitForExit`'s
  /// bound, so "at once" needs no timing of its own.
  static func stuckRun(_ scratch: JournalScratch, plugins: String) throws -> TmuxScreen {
    let host = try TmuxScreen(
      ["--plugins", plugins, "run", "tally", "--session", "stuck", "--call-timeout", "600"],
      environment: ["XDG_STATE_HOME": scratch.file("state")])
    try host.waitForLastLine("tally>")
    try host.type("add amount=2\r")
    try host.waitForScreen("total 2") { $0.contains("  total: 2") && $0.last == "tally>" }
    try host.type("hang\r")
    try host.waitForLastLine("tally>")
    // typed after the stuck line: never applied
    try host.type("add amount=1\r")
    try host.waitForLastLine("tally>")
    return host
  }

  /// The session's state as a new run restores it from the journal.
  static func restoredState(_ scratch: JournalScratch, plugins: String) async throws -> String {
    let result = try await HostProcess.run(
      ["--plugins", plugins, "run", "tally", "--session", "stuck"], input: ":state\n",
      environment: ["XDG_STATE_HOME": scratch.file("state")])
    return String(result.stdout.split(separator: "\n").first { $0.hasPrefix("{") } ?? "")
  }

  @Test func quitWhileAStateQuestionWaitsOnAStuckCallLeavesAtOnce() async throws {
    let scratch = try JournalScratch()
    let plugins = try Self.plugins()
    let host = try Self.stuckRun(scratch, plugins: plugins)
    // given ':state' waiting behind the stuck call
    try host.type(":state\r")
    try host.waitForScreen("the :state line") { $0.last == "tally> :state" || $0.last == ":state" }
    // when ':quit' is typed
    try host.type(":quit\r")
    // then the run ends, long before the call's timeout, as ':quit' does, saying why
    #expect(try host.waitForExit() == 0)
    let screen = try host.screen()
    #expect(screen.contains("note: leaving: tally's call had not returned; it was ended"), "\(screen)")
    // and the journal holds the state before the stuck line: the add typed after it was not applied
    #expect(try await Self.restoredState(scratch, plugins: plugins) == #"{"pongs":0,"total":2}"#)
  }

  @Test func ctrlDAtThePromptWhileACallIsStuckLeavesAtOnce() async throws {
    let scratch = try JournalScratch()
    let plugins = try Self.plugins()
    let host = try Self.stuckRun(scratch, plugins: plugins)
    try host.press("C-d")
    #expect(try host.waitForExit() == 0)
    #expect(try await Self.restoredState(scratch, plugins: plugins) == #"{"pongs":0,"total":2}"#)
  }
}
