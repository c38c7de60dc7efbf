import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `host run` at a real pseudo-terminal: the line editor, history, completion, Ctrl-C and signals,
/// output arriving while a line is typed, and what reaches the terminal from a server.
@Suite(.serialized) struct TerminalSessionTests {
  /// A run's own state folder (history) and temporary root (its run folder).
  final class Places {
    let scratch: JournalScratch
    var state: String { scratch.file("state") }
    var temporary: String { scratch.file("tmp") }
    var environment: [String: String] { ["XDG_STATE_HOME": state, "TMPDIR": temporary + "/"] }

    init() throws {
      scratch = try JournalScratch()
      try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    }

    /// `host run feature arguments...` at a terminal, in these places with `adding` set in its
    /// environment, once it shows its prompt.
    func run(_ feature: String, _ arguments: [String] = [], adding: [String: String] = [:]) throws -> PseudoTerminal {
      let host = try PseudoTerminal(["run", feature] + arguments, environment: environment.merging(adding) { $1 })
      try host.waitFor("\(feature)> ")
      return host
    }

    /// The run folders left in the temporary root's `featurehost-runs-UID`.
    func runFolders() throws -> [String] {
      let parent = "\(temporary)/featurehost-runs-\(geteuid())"
      guard FileManager.default.fileExists(atPath: parent) else { return [] }
      return try FileManager.default.contentsOfDirectory(atPath: parent)
    }
  }

  private static let ctrlA = "\u{1}", ctrlC = "\u{3}", ctrlE = "\u{5}", ctrlK = "\u{B}", ctrlU = "\u{15}"
  private static let ctrlW = "\u{17}", left = "\u{1B}[D", up = "\u{1B}[A", home = "\u{1B}[H", end = "\u{1B}[F"

  @Test func editingKeysChangeTheLineBeforeItIsSent() throws {
    let places = try Places()
    let host = try places.run("counter")
    // Ctrl-A and Ctrl-E: "crement" becomes "increment".
    try host.enter("crement\(Self.ctrlA)in\(Self.ctrlE)", thenWaitFor: "count:  1")
    // Ctrl-U drops everything before the cursor.
    try host.enter("bogus words\(Self.ctrlU)increment", thenWaitFor: "count:  2")
    // Left arrows then Ctrl-K: the tail is cut.
    try host.enter(
      "decrement junk\(Self.left)\(Self.left)\(Self.left)\(Self.left)\(Self.left)\(Self.ctrlK)",
      thenWaitFor: "count:  1")
    // Ctrl-W drops the word before the cursor; Home and End move to the ends.
    try host.enter("increment bogus\(Self.ctrlW)\(Self.home)\(Self.end)", thenWaitFor: "count:  2")
    #expect(try host.quit() == 0)
    #expect(!host.all.contains("error:"))
  }

  @Test func historyIsRecalledWithTheUpArrowInTheNextRunAndKeptBounded() throws {
    let places = try Places()
    // A history already at the bound: the oldest lines go, the file stays at the bound.
    let folder = places.state + "/featurehost"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let old = (1...600).map { "decrement # \($0)" }
    try ("_HiStOrY_V2_\n" + old.joined(separator: "\n") + "\n").write(
      toFile: folder + "/counter.history", atomically: true, encoding: .utf8)

    let first = try places.run("counter")
    try first.enter("increment", thenWaitFor: "count:  1")
    #expect(try first.quit() == 0)

    let file = try String(contentsOfFile: folder + "/counter.history", encoding: .utf8)
    let lines = file.split(separator: "\n")
    #expect(lines.count <= 501, "the history file holds \(lines.count) lines")
    #expect(lines.suffix(2).map(String.init) == ["increment", ":quit"])

    // The next run recalls them, newest first: Up Up is "increment".
    let second = try places.run("counter")
    try second.enter("\(Self.up)\(Self.up)", thenWaitFor: "count:  1")
    #expect(try second.quit() == 0)
  }

  @Test func tabCompletesActionsArgumentsCommandsAndFeatureIDs() throws {
    let places = try Places()
    let host = try places.run("levels", adding: ["LEVELS_INTERVAL": "0"])
    // Only completion can turn these keys into a known action and a known command.
    try host.enter("se\tle\t3 ri\t9", thenWaitFor: "settled at 6")
    host.type(":op\tcou\t")
    host.type("\r")
    try host.waitFor("count:  0")
    #expect(try host.quit() == 0)
    #expect(!host.all.contains("error:"))
  }

  @Test func ctrlCDropsTheLineAndTwiceLeavesWithoutATemporaryFolder() throws {
    let places = try Places()
    let host = try places.run("counter")
    #expect(try places.runFolders().count == 1)
    host.type("increment\(Self.ctrlC)")
    try host.waitFor("^C")
    // The dropped line was not sent: the state is still the first one.
    try host.enter(":state", thenWaitFor: "\"count\":0")
    try host.waitFor("counter> ")
    host.type(Self.ctrlC + Self.ctrlC)
    #expect(try host.waitForExit() == 130)
    #expect(host.all.contains("interrupted twice: leaving"))
    #expect(try places.runFolders() == [])
  }

  @Test func ctrlCEndsASettleWaitAndTheSessionGoesOn() throws {
    let places = try Places()
    let host = try places.run("levels", adding: ["LEVELS_INTERVAL": "500"])
    host.type("set left=0 right=2000\r:settle\r")
    try host.waitFor("Ctrl-C stops waiting")
    host.type(Self.ctrlC)
    try host.waitFor("stopped waiting for levels")
    #expect(try host.quit() == 0)
  }

  @Test func aNamedSessionSaysWhereItIsSavedOnLeavingAtATerminal() throws {
    let places = try Places()
    let first = try places.run("counter", ["--session", "demo"])
    first.type("increment\r:quit\r")
    try first.waitFor("note: session demo saved at seq 2")
    #expect(try first.waitForExit() == 0)
    let second = try PseudoTerminal(["run", "counter", "--session", "demo"], environment: places.environment)
    try second.waitFor("note: restored session demo (counter) at seq 2")
    #expect(try second.quit() == 0)
  }

  @Test(arguments: [(SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
  func terminationSignalsLeaveThroughTheNormalWayOut(signal: Int32, status: Int32) throws {
    let places = try Places()
    let host = try places.run("counter")
    host.type("incr")
    host.send(signal)
    #expect(try host.waitForExit() == status)
    #expect(try places.runFolders() == [])
  }

  @Test func outputWhileTypingComesAboveAndTheTypedLineStaysIntact() throws {
    let places = try Places()
    let host = try places.run("levels", adding: ["LEVELS_INTERVAL": "20"])
    try host.enter("set left=0 right=400", thenWaitFor: "regulating")
    host.type(":hi")
    // A view drawn after the half-typed line is followed by the prompt and that line again.
    try host.waitFor("regulating")
    try host.waitFor("levels> :hi")
    // The whole line was sent: ':history' lists the set action.
    try host.enter("story", thenWaitFor: "\"type\":\"set\"")
    #expect(try host.quit() == 0)
    #expect(!host.all.contains("unknown command"))
  }

  @Test func escapeSequencesFromAServerReachTheTerminalAsVisibleText() throws {
    let places = try Places()
    let catalog = places.scratch.file("evil.json")
    try TerminalTextTests.evilCatalog.write(toFile: catalog, atomically: true, encoding: .utf8)
    let host = try PseudoTerminal(
      ["run", "kittens", "--config", "endpoint=file://\(catalog)"], environment: places.environment)
    try host.waitFor("3 images")
    try host.waitFor("end of the catalog")
    #expect(try host.quit() == 0)
    let all = host.all
    for sequence in ["\u{1B}]52;", "\u{1B}[2J", "\u{1B}]0;"] {
      #expect(!all.contains(sequence), "the terminal got \(TerminalText.sanitized(sequence))")
    }
    #expect(all.contains("\\u001b]52;c;aGVsbG8=\\u0007"))
    #expect(all.contains("\\u001b[2J"))
  }
}
