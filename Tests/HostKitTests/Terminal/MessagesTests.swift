import FeatureTesting
import Foundation
import Testing

@Suite struct MessagesTests {
  @Test func bareHelpQuitAndExitPointAtTheColonCommands() async throws {
    let result = try await HostProcess.run(["run", "counter"], input: "help\nquit\nexit\nincrement\n")
    #expect(
      result.stderr == """
        error: line 1: 'help' is not an action of counter
        help: host commands start with ':': type ':help'
        error: line 2: 'quit' is not an action of counter
        help: host commands start with ':': type ':quit'
        error: line 3: 'exit' is not an action of counter
        help: host commands start with ':': type ':quit'

        """)
    #expect(result.stdout.hasSuffix("count:  1\n  clicks: 1\n"))
  }

  @Test func aUniquePrefixNamesACommandAndAnAmbiguousOneIsRefused() async throws {
    let result = try await HostProcess.run(["run", "counter"], input: "increment\n:sta\n:o levels\n:s\n")
    #expect(result.stdout.hasPrefix("{\"clicks\":1,\"count\":1}\n"))
    #expect(result.stdout.contains("Levels — settled at 15"))
    #expect(result.stderr.hasPrefix("error: line 4: unknown command ':s'"))
  }

  @Test(arguments: [
    (["NO_COLOR": "", "TERM": "xterm"], true), (["NO_COLOR": "1", "TERM": "xterm"], false),
    (["NO_COLOR": "", "TERM": "dumb"], false),
  ])
  func passAndFailAreColouredUnlessNoColorOrADumbTerminal(environment: [String: String], coloured: Bool) throws {
    // --timeout 60: the timeout is for hangs; under a sanitizer the bad-actions check takes over 10 s.
    let host = try PseudoTerminal(
      ["validate", PluginPaths.library("Counter"), "--timeout", "60"], environment: environment)
    // (every check of a debug build, on a machine the rest of the suite keeps busy)
    #expect(try host.waitForExit(timeout: .seconds(600)) == 0)
    #expect(host.all.contains("\u{1B}[32mpass\u{1B}[0m  loads") == coloured)
    #expect(host.all.contains("\u{1B}") == coloured)
  }
}

@Suite struct HelpAndOptionWordingTests {
  @Test func helpBeforeACommandIsThatCommandsHelp() async throws {
    let before = try await HostProcess.run(["--help", "run"])
    let after = try await HostProcess.run(["help", "run"])
    #expect(before.status == 0 && after.status == 0)
    #expect(before.stdout == after.stdout)
    #expect(before.stdout.contains("--session NAME"))
  }

  @Test func helpOnAnUnknownCommandIsAUsageError() async throws {
    let result = try await HostProcess.run(["help", "bogus"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: unknown command 'bogus'"))
  }

  @Test func aChoiceIsReadInAnyCase() async throws {
    let scratch = try JournalScratch()
    let result = try await HostProcess.run(["new", "tally", "--lang", "C", "--dir", scratch.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("created \(scratch.path)/tally (c):"))
  }
}

@Suite struct SessionMessagesTests {
  @Test func aSessionAskedForWithAnotherFeatureIsAnErrorNamingBoth() async throws {
    let scratch = try JournalScratch()
    let environment = ["XDG_STATE_HOME": scratch.path]
    let made = try await HostProcess.run(
      ["run", "counter", "--session", "mine"], input: "increment\n", environment: environment)
    #expect(made.status == 0)
    let other = try await HostProcess.run(
      ["run", "levels", "--session", "mine"], input: ":state\n", environment: environment)
    #expect(other.status == 1)
    #expect(
      other.stderr.hasSuffix(
        "error: session 'mine' holds counter, not levels\n"
          + "help: run it as 'host run counter --session mine', or pick another session name\n"))
    #expect(other.stdout == "")
  }
}

@Suite struct PluginFolderMessagesTests {
  @Test func aMissingPluginsFolderIsWarnedAboutAndTheRestStillRun() async throws {
    let result = try await HostProcess.run(["--plugins", "/no/such/folder", "run", "counter"], input: "increment\n")
    #expect(result.status == 0)
    #expect(
      result.stderr.hasPrefix(
        "warning: plugin folder '/no/such/folder' (--plugins) does not exist; the other folders are searched\n"))
    #expect(result.stdout.hasSuffix("count:  1\n  clicks: 1\n"))
  }

  @Test func aRejectedPluginsLineCarriesTheFix() async throws {
    let scratch = try JournalScratch()
    let copy = scratch.file("libCounter.so")
    try FileManager.default.copyItem(atPath: PluginPaths.library("Counter"), toPath: copy)
    chmod(copy, 0o775)
    let result = try await HostProcess.run(["--plugins", scratch.path, "list"])
    let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("rejected  \(copy)") })
    #expect(line.contains("(mode 775); refusing to load plugins from it; "))
    #expect(line.hasSuffix("run 'chmod go-w \(copy)'"))
  }
}
