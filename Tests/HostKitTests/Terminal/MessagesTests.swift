import FeatureTesting
import Testing

@Suite struct MessagesTests {
  @Test func bareHelpQuitAndExitPointAtTheColonCommands() throws {
    let result = try HostProcess.run(["run", "counter"], input: "help\nquit\nexit\nincrement\n")
    #expect(
      result.stderr == """
        error: 'help' is not an action of counter
        help: host commands start with ':': type ':help'
        error: 'quit' is not an action of counter
        help: host commands start with ':': type ':quit'
        error: 'exit' is not an action of counter
        help: host commands start with ':': type ':quit'

        """)
    #expect(result.stdout.hasSuffix("count:  1\n  clicks: 1\n"))
  }

  @Test func aUniquePrefixNamesACommandAndAnAmbiguousOneIsRefused() throws {
    let result = try HostProcess.run(["run", "counter"], input: "increment\n:sta\n:o levels\n:s\n")
    #expect(result.stdout.hasPrefix("{\"clicks\":1,\"count\":1}\n"))
    #expect(result.stdout.contains("Levels — settled at 15"))
    #expect(result.stderr.hasPrefix("error: unknown command ':s'"))
  }

  @Test(arguments: [
    (["NO_COLOR": "", "TERM": "xterm"], true), (["NO_COLOR": "1", "TERM": "xterm"], false),
    (["NO_COLOR": "", "TERM": "dumb"], false),
  ])
  func passAndFailAreColouredUnlessNoColorOrADumbTerminal(environment: [String: String], coloured: Bool) throws {
    let host = try PseudoTerminal(["validate", PluginPaths.library("Counter")], environment: environment)
    #expect(try host.waitForExit() == 0)
    #expect(host.all.contains("\u{1B}[32mpass\u{1B}[0m  loads") == coloured)
    #expect(host.all.contains("\u{1B}") == coloured)
  }
}
