import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What moves at a real pseudo-terminal: a resize draws the view again for the new width, a long
/// wait shows a progress line that is erased after, and Ctrl-C pauses a running regulation. A pipe
/// gets none of it.
@Suite(.serialized) struct TerminalMotionTests {
  private static let ctrlC = "\u{3}"

  /// `text` as the terminal shows it: no carriage returns, no styling or line erasing.
  private func shown(_ text: String) -> [String] {
    text.replacingOccurrences(of: "\r", with: "")
      .replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[@-~]", with: "", options: .regularExpression)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  private func environment(_ scratch: JournalScratch, _ more: [String: String] = [:]) -> [String: String] {
    ["XDG_STATE_HOME": scratch.file("state"), "TMPDIR": NSTemporaryDirectory()].merging(more) { $1 }
  }

  @Test func aResizeDrawsLevelsAgainWithBarsForTheNewWidthAndTheTypedLineIntact() throws {
    let scratch = try JournalScratch()
    let host = try PseudoTerminal(
      ["run", "levels", "--config", "interval=0"], environment: environment(scratch), columns: 60)
    let wide = shown(try host.waitFor("settled at 15") + host.waitFor("levels> "))
    // 60 columns leave room for the full 40-cell bar: 15 of 20 is 30 cells.
    #expect(wide.contains("  left  15 " + String(repeating: "█", count: 30)), "\(wide)")
    host.type("set left=1")
    try host.waitFor("set left=1")
    host.resize(columns: 30)
    // A bar of 20 at 30 columns is 30 - "  right " - "15 " = 19 cells: 15 is drawn as 14.
    try host.waitFor("  left  15 " + String(repeating: "█", count: 14) + "\r\n")
    try host.waitFor("  right 15 " + String(repeating: "█", count: 14) + "\r\n")
    // The prompt and the half-typed line come back under the view, and the line goes on.
    try host.waitFor("levels> set left=1")
    try host.enter(" right=3", thenWaitFor: "settled at 2")
    #expect(try host.quit() == 0)
    #expect(!host.all.contains("error:"))
  }

  @Test func aLongSettleShowsAProgressLineThatIsErasedAfterward() throws {
    let scratch = try JournalScratch()
    let host = try PseudoTerminal(["run", "levels"], environment: environment(scratch, ["LEVELS_INTERVAL": "500"]))
    try host.waitFor("levels> ")
    try host.enter("set left=0 right=2000", thenWaitFor: "levels> ")
    host.type(":settle\r")
    // After half a second: a spinner, what is awaited, the seconds, and what Ctrl-C does.
    let progress = try host.waitFor("Ctrl-C stops waiting")
    #expect(progress.contains("waiting for levels to settle (1 effect running)"), "\(progress)")
    try host.waitFor(" s")
    host.type(Self.ctrlC)
    try host.waitFor("stopped waiting for levels")
    // The progress line is erased before the prompt comes back, and no note was left for it.
    let after = try host.waitFor("levels> ")
    #expect(after.contains("\r\u{1B}[K"), "\(TerminalText.sanitized(after))")
    let lines = shown(host.all)
    #expect(lines.contains { $0.contains("note: stopped waiting for levels") })
    #expect(!host.all.contains("note: waiting"))
    #expect(try host.quit() == 0)
  }

  /// A loopback port that takes connections and never answers: a load waits out its timeout.
  private final class SilentServer {
    let socket: Int32
    let port: UInt16

    init() throws {
      let (descriptor, port) = try LoopbackSocket.bind(listening: 4)
      socket = descriptor
      self.port = UInt16(port)
    }

    deinit { close(socket) }
  }

  @Test func aSlowLoadShowsProgressInThePromptAndTheTypedLineStaysIntact() throws {
    let scratch = try JournalScratch()
    let server = try SilentServer()
    let host = try PseudoTerminal(
      ["run", "kittens", "--config", "endpoint=http://127.0.0.1:\(server.port)/", "--config", "timeout=3"],
      environment: environment(scratch))
    try host.waitFor("loading page at offset 0")
    host.type(":sta")
    // After half a second: a spinner and the seconds, the half-typed line after them.
    let progress = try host.waitFor(" s> :sta")
    #expect(progress.contains("kittens "), "\(TerminalText.sanitized(progress))")
    // The load gives up; the plain prompt comes back with the line, which goes on.
    try host.waitFor("no answer from")
    try host.waitFor("kittens> :sta")
    try host.enter("te", thenWaitFor: "\"isLoading\":false")
    #expect(try host.quit() == 0)
  }

  @Test func aPipeGetsNoProgressLine() async throws {
    let result = try await HostProcess.run(
      ["run", "levels"], input: "set left=0 right=30\n:settle\n:state\n", environment: ["LEVELS_INTERVAL": "40"])
    #expect(result.status == 0)
    #expect(result.stdout.hasSuffix(SettledLevels.view(at: 15, bar: 30)))
    for text in [result.stdout, result.stderr] {
      #expect(!text.contains("\r") && !text.contains("\u{1B}") && !text.contains("waiting"), "\(text)")
    }
  }

  @Test func ctrlCPausesARunningRegulationUntilResumeAndTheSessionRestoresWhereItStopped() async throws {
    let scratch = try JournalScratch()
    let places = environment(scratch, ["LEVELS_INTERVAL": "20"])
    let host = try PseudoTerminal(["run", "levels", "--session", "reg"], environment: places)
    // The first regulation (10 and 20) is over before the long one starts.
    try host.waitFor("settled at 15")
    try host.waitFor("levels> ")
    try host.enter("set left=0 right=400", thenWaitFor: "right 399")
    // At the prompt again, the regulation running above it.
    try host.waitFor("levels> ")
    host.type(Self.ctrlC)
    try host.waitFor("note: levels paused; ':resume' to go on")
    // Paused, it settles at once, and nothing moves: two looks at the state agree.
    try host.enter(":settle", thenWaitFor: "note: levels paused; ':resume' to go on")
    host.type(":state\r")
    let first = try host.waitFor("}")
    host.type(":state\r")
    let second = try host.waitFor("}")
    let state = { (text: String) in text.split(separator: "{").last.map(String.init) }
    #expect(state(first) != nil && state(first) == state(second), "\(first) / \(second)")
    try host.enter(":resume", thenWaitFor: "settled at 200", timeout: .seconds(60))
    #expect(try host.quit() == 0)
    // The journal holds what was applied, pause or not: the session restores the settled levels.
    let restored = try await HostProcess.run(
      ["run", "levels", "--session", "reg"], input: ":state\n",
      environment: places.merging(["LEVELS_INTERVAL": "0"]) { $1 })
    #expect(restored.stdout.hasPrefix("{\"left\":200,\"right\":200}\n"), "\(restored.stdout)\(restored.stderr)")
  }

  @Test func resumeWithNothingPausedSaysWhatItFollows() async throws {
    let result = try await HostProcess.run(["run", "counter"], input: ":resume\n")
    #expect(result.stderr.contains("error: line 1: counter is not paused"))
    #expect(result.stderr.contains("help: ':resume' follows a pause: Ctrl-C during a regulation, or the runaway guard"))
  }
}
