import FeatureTesting
import Foundation
import Testing

@Suite("host CLI")
struct HostCLITests {
  @Test func counterInAPipeReportsStateAndFinalView() async throws {
    let result = try await HostProcess.run(["run", "counter"], input: "increment\nincrement\ndecrement\n:state\n")
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(result.stdout == "{\"clicks\":3,\"count\":1}\nCounter\n  count:  1\n  clicks: 3\n")
  }

  @Test func aBadLineIsReportedAndTheRunGoesOn() async throws {
    let result = try await HostProcess.run(
      ["run", "counter"], input: "increment\nincremnt\ncount=3\n{\"type\":\"created\"}\n:stte\nincrement\n:state\n")
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("{\"clicks\":2,\"count\":2}\n"))
    #expect(
      result.stderr.contains("error: line 2: unknown action 'incremnt' for counter\nhelp: did you mean 'increment'?"))
    #expect(result.stderr.contains("error: line 3: unknown action 'count=3'"))
    #expect(result.stderr.contains("error: line 4: 'created' is a lifecycle action only the host sends"))
    #expect(result.stderr.contains("error: line 5: unknown command ':stte'\nhelp: did you mean ':state'?"))
  }

  @Test func rawJSONActionsWork() async throws {
    let result = try await HostProcess.run(["run", "counter"], input: "{\"type\":\"decrement\"}\n:state\n")
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("{\"clicks\":1,\"count\":-1}\n"))
  }

  @Test func anUnknownFeatureExitsWithUsageAndListsTheKnownIds() async throws {
    let result = try await HostProcess.run(["run", "countr"])
    #expect(result.status == 64)
    #expect(result.stdout == "")
    #expect(result.stderr.contains("error: unknown feature 'countr'"))
    #expect(result.stderr.contains("help: did you mean 'counter'? known features: counter"))
  }

  @Test func listShowsEachFeatureAndRejectedCandidates() async throws {
    let folder = try FixturePlugin.temporaryFolder()
    try FixturePlugin.build(["FIXTURE_NEWER_MINOR"], into: "\(folder)/libnewer.so")
    let result = try await HostProcess.run(["--plugins", folder, "list"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let counter = lines.first { $0.hasPrefix("counter ") }
    #expect(counter?.contains("1.0.0") == true)
    #expect(counter?.contains("abi 1.1") == true)
    #expect(counter?.hasSuffix("/libCounter.so  needs: none") == true)
    #expect(lines.contains { $0.hasPrefix("rejected  \(folder)/libnewer.so") && $0.contains("needs ABI 1.8") })
  }

  @Test func listShowsWhatEachFeatureNeeds() async throws {
    // when the shipped features are listed
    let result = try await HostProcess.run(["list"])
    // then kittens' line ends with its endpoint's needs, and the counter's with none
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    let kittens = try #require(lines.first { $0.hasPrefix("kittens ") })
    #expect(
      kittens.hasSuffix("/libKittens.so  needs: connect endpoint's port (default 443); read endpoint's path"),
      "\(kittens)")
    #expect(lines.first { $0.hasPrefix("counter ") }?.hasSuffix("/libCounter.so  needs: none") == true)
  }

  @Test func pluginPathEnvironmentIsSearched() async throws {
    let folder = try FixturePlugin.temporaryFolder()
    try FixturePlugin.build([], into: "\(folder)/libfixture.so")
    let result = try await HostProcess.run(
      ["run", "fixture"], input: "tick tag=T\n:state\n", environment: ["FEATUREHOST_PLUGIN_PATH": folder])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("{\"count\":0,\"disorder\":0,\"foreign\":1,\"pings\":0,\"reentered\":0}\n"))
  }

  static let usageCases: [UsageCase] = [
    UsageCase(
      id: "unknown-command", arguments: ["lst"], status: 64,
      stderr: "error: unknown command 'lst'\nhelp: did you mean 'list'?"),
    UsageCase(
      id: "unknown-option", arguments: ["--plugin", "x"], status: 64,
      stderr: "error: unknown option '--plugin'\nhelp: did you mean '--plugins'?"),
    UsageCase(
      id: "main-flow-option-misspelt", arguments: ["--sesion", "x"], status: 64,
      stderr: "error: unknown option '--sesion'\nhelp: did you mean '--session'?\n\nrun 'host --help' for usage"),
    UsageCase(
      id: "run-option-misspelt", arguments: ["run", "counter", "--sesion", "x"], status: 64,
      stderr:
        "error: unknown option '--sesion' for 'run'\nhelp: did you mean '--session'?\n\nrun 'host run --help' for usage"
    ),
    UsageCase(
      id: "option-as-value", arguments: ["run", "counter", "--session", "--config", "a=1"], status: 64,
      stderr: "error: --session needs a value (NAME), got the option '--config'"),
    UsageCase(
      id: "option-twice", arguments: ["run", "counter", "--session", "a", "--session", "b"], status: 64,
      stderr: "error: --session is given twice, as 'a' and 'b'"),
    UsageCase(
      id: "id-and-flow", arguments: ["run", "counter", "--flow", "f.json"], status: 64,
      stderr: "error: 'run' takes a feature id or --flow FILE, not both"),
    UsageCase(
      id: "help-for-unknown-command", arguments: ["help", "rum"], status: 64,
      stderr: "error: unknown command 'rum'\nhelp: did you mean 'run'?"),
    UsageCase(
      id: "sessions-misspelt", arguments: ["sessions", "rmm", "x"], status: 64,
      stderr: "error: unknown command 'rmm' for 'sessions'\nhelp: did you mean 'rm'?"),
    UsageCase(
      id: "replay-bad-seq", arguments: ["replay", "x.jsonl", "--to", "last"], status: 64,
      stderr: "error: --to 'last' must be a whole number 0 or more"),
    UsageCase(id: "run-without-id", arguments: ["run"], status: 64, stderr: "error: 'run' needs a feature id"),
    UsageCase(
      id: "plugins-without-folder", arguments: ["--plugins"], status: 64,
      stderr: "error: --plugins needs a value (DIR)\nhelp: give it as '--plugins DIR'; see 'host --help'"),
    UsageCase(
      id: "bad-feedback-bound", arguments: ["run", "counter", "--max-feedback-steps", "0"], status: 64,
      stderr: "error: --max-feedback-steps '0' must be a whole number above 0"),
    UsageCase(
      id: "bad-config", arguments: ["run", "counter", "--config", "nonsense"], status: 64,
      stderr: "error: --config 'nonsense' is neither a JSON object nor KEY=VALUE"),
  ]

  @Test("usage errors exit 64 and say what is wrong", arguments: usageCases)
  func usageErrors(_ usage: UsageCase) async throws {
    let result = try await HostProcess.run(usage.arguments)
    #expect(result.status == usage.status)
    #expect(result.stderr.contains(usage.stderr))
  }

  @Test(
    "each command's help is the same whichever way it is asked for",
    arguments: [
      "list", "run", "validate", "check", "new", "sessions", "replay", "devtools", "help",
    ])
  func helpIsPrintedForEachCommand(_ command: String) async throws {
    let asked = try await HostProcess.run([command, "--help"])
    #expect(asked.status == 0)
    #expect(asked.stdout.hasPrefix("usage: host"))
    #expect(asked.stdout.contains(" \(command)"))
    #expect(asked.stdout.contains("\n  -h, --help "))
    let short = try await HostProcess.run([command, "-h"])
    let viaHelp = try await HostProcess.run(["help", command])
    #expect(short.stdout == asked.stdout)
    #expect(viaHelp.stdout == asked.stdout)
  }

  @Test func theHostsHelpListsEveryCommand() async throws {
    let result = try await HostProcess.run(["--help"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("usage: host"))
    for command in [
      "list", "run ID", "validate PLUGIN.so|ID", "check FILE|DIR...", "new NAME", "sessions [list|rm NAME]",
    ] {
      #expect(result.stdout.contains("\n  \(command) "))
    }
    #expect(try await HostProcess.run(["help"]).stdout == result.stdout)
  }
}
