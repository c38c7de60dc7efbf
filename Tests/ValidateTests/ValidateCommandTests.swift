import FeatureTesting
import Testing

/// The command line of `host validate`: its usage errors, its help, its output's shape.
@Suite("host validate, the command")
struct ValidateCommandTests {
  static let counter = PluginPaths.library("Counter")

  static let usageCases: [UsageCase] = [
    UsageCase(
      id: "no-plugin", arguments: ["validate"], status: 64,
      stderr: "error: 'validate' needs a plugin file or feature id"),
    UsageCase(
      id: "two-plugins", arguments: ["validate", counter, counter], status: 64,
      stderr: "error: 'validate' takes one plugin file or feature id"),
    UsageCase(
      id: "unknown-option", arguments: ["validate", counter, "--timout", "3"], status: 64,
      stderr: "error: unknown option '--timout' for 'validate'\nhelp: did you mean '--timeout'?"),
    UsageCase(
      id: "zero-timeout", arguments: ["validate", counter, "--timeout", "0"], status: 64,
      stderr: "error: --timeout '0' must be a number of seconds above 0"),
    UsageCase(
      id: "timeout-without-value", arguments: ["validate", counter, "--timeout"], status: 64,
      stderr: "error: --timeout needs a value"),
    UsageCase(
      id: "bad-config", arguments: ["validate", counter, "--config", "nonsense"], status: 64,
      stderr: "error: --config 'nonsense' is neither a JSON object nor KEY=VALUE"),
    UsageCase(
      id: "unknown-check", arguments: ["validate", counter, "--check", "render2"], status: 64,
      stderr: "error: --check 'render2' is not a check 'host validate' knows\nhelp: did you mean 'render'?"),
    UsageCase(
      id: "missing-file", arguments: ["validate", "/no/such/libplugin.so"], status: 1,
      stderr: "error: no plugin file '/no/such/libplugin.so'\nhelp: give the path of a built plugin"),
    // A word without a slash that names no file is a feature id: one the host does not find is
    // refused with the ids it found.
    UsageCase(
      id: "unknown-feature", arguments: ["validate", "countr"], status: 1,
      stderr: "error: no plugin file or feature 'countr'\nhelp: did you mean 'counter'? give a feature id (found: "),
  ]

  @Test(arguments: usageCases)
  func aBadCommandLineIsRefused(_ usage: UsageCase) async throws {
    let result = try await HostProcess.run(usage.arguments)
    #expect(result.status == usage.status)
    #expect(result.stdout == "")
    #expect(result.stderr.hasPrefix(usage.stderr), "\(result.stderr)")
  }

  @Test func helpListsEveryCheck() async throws {
    let result = try await HostProcess.run(["help", "validate"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("usage: host validate PLUGIN.so|ID [options]"))
    for name in ValidateReport.allChecks { #expect(result.stdout.contains("\n  \(name) ")) }
  }

  @Test func aFileThatIsNoLibraryFailsLoadsAndTheRestAreSkipped() async throws {
    let report = try await ValidateReport.run("\(FixturePlugin.packageRoot)/Package.swift")
    #expect(report.status == 1)
    #expect(report.failures["loads"]?.hasPrefix("dlopen(RTLD_NOW) refused") == true)
    #expect(report.failures.count == 1)
    #expect(report.lines.contains("skip  entry  needs: loads"))
    #expect(report.lines.contains("skip  render  needs: descriptor"))
    #expect(report.summary == "0 passed, 1 failed, \(ValidateReport.allChecks.count - 1) skipped")
  }

  @Test func aManifestThatIsNotJSONFailsManifestAndSkipsTheChecksBuiltOnIt() async throws {
    let report = try await ValidateReport.run(try FixturePlugin.tally("FIXTURE_BAD_MANIFEST"), ["--timeout", "30"])
    #expect(report.status == 1)
    #expect(Array(report.failures.keys) == ["manifest"], "\(report.output.stdout)")
    #expect(report.failures["manifest"]?.hasPrefix("manifest is not valid JSON") == true)
    let built = [
      "catalogue", "bad-actions", "snapshot-round-trip", "lifecycle", "no-emit-after-stop", "deterministic", "render",
      "extra-members", "lifecycle-action", "refused-arguments", "effect-accounting",
    ]
    #expect(report.skipped.map(\.check) == built)
    #expect(report.skipped.allSatisfy { $0.needs == "manifest" })
    // The checks that read no manifest still run, and pass.
    let others = ValidateReport.allChecks.filter { !built.contains($0) && $0 != "manifest" }
    #expect(report.passed == others)
    #expect(report.summary == "\(others.count) passed, 1 failed, \(built.count) skipped")
  }

  @Test func oneLinePerCheckThenTheSummary() async throws {
    let report = try await ValidateReport.run(Self.counter, ["--timeout", "60"])
    let names = ValidateReport.allChecks
    #expect(report.lines == names.map { "pass  \($0)" } + ["\(names.count) passed, 0 failed", ""])
  }

  @Test func aRelativePathIsTheCurrentFoldersNotTheLibraryPath() async throws {
    // dlopen("libCounter.so") would search the library path; validate reads the file named.
    let result = try await HostProcess.run(["validate", "libCounter.so"])
    #expect(result.status == 1)
    #expect(result.stderr.hasPrefix("error: no plugin file 'libCounter.so'"))
  }
}
