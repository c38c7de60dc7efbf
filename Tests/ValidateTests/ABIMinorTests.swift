import FeatureTesting
import Foundation
import HostKit
import Testing

/// A plugin is judged by the rules of the ABI minor it declares (feature_abi.h's ChangeLog): a
/// 1.0 plugin that breaks a rule decided in 1.1 gets a note, not a failure, and `list`, `run`
/// and `validate` all take it; a rule 1.0 had already still fails it.
@Suite("host validate judges a plugin by the ABI minor it declares")
struct ABIMinorTests {
  /// A tally declaring ABI 1.0 that takes actions before `created`, as plugins written against
  /// the first 1.0 header do.
  static func earlyActions(minor: Int) throws -> String {
    try FixturePlugin.tally("CONTRACT_BREAK_EARLY_ACTION", "FIXTURE_ABI_MINOR=\(minor)")
  }

  @Test func aPluginOf1_0GetsANoteWhere1_1IsStricter() async throws {
    let report = try await ValidateReport.run(try Self.earlyActions(minor: 0), ["--timeout", "30"])
    #expect(report.status == 0, "\(report.output.stdout)\(report.output.stderr)")
    #expect(report.failures.isEmpty, "\(report.output.stdout)")
    let note = try #require(report.lines.first { $0.hasPrefix("note  lifecycle-action  ") })
    #expect(note.contains("before the lifecycle action returned FH_OK, want FH_ERR_LIFECYCLE"), "\(note)")
    #expect(note.hasSuffix("(a rule of ABI 1.1; this plugin declares 1.0, so it is not held to it)"), "\(note)")
    let total = ValidateReport.allChecks.count
    #expect(report.summary == "\(total) passed (1 with a note), 0 failed")
  }

  @Test func theSameBreachFailsAPluginOf1_1() async throws {
    let report = try await ValidateReport.run(try Self.earlyActions(minor: 1), ["--timeout", "30"])
    #expect(report.status == 1)
    #expect(Array(report.failures.keys) == ["lifecycle-action"], "\(report.output.stdout)")
    #expect(!report.lines.contains { $0.hasPrefix("note  ") })
  }

  @Test func aRuleOf1_0StillFailsAPluginOf1_0() async throws {
    let path = try FixturePlugin.tally("BREAK_RENDER_ESCAPES", "FIXTURE_ABI_MINOR=0")
    let report = try await ValidateReport.run(path, ["--timeout", "30"])
    #expect(report.status == 1)
    #expect(Array(report.failures.keys) == ["render"], "\(report.output.stdout)")
  }

  @Test func listAndRunLoadThe1_0PluginThatValidatePasses() async throws {
    let path = try Self.earlyActions(minor: 0)
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let list = try await HostProcess.run(["--plugins", folder, "list"])
    let line = list.stdout.split(separator: "\n").first { $0.hasPrefix("tally ") }
    #expect(line?.contains("abi 1.0") == true, "\(list.stdout)\(list.stderr)")
    #expect(!list.stdout.contains("rejected  \(path)"))
    let run = try await HostProcess.run(["--plugins", folder, "run", "tally"], input: "add amount=2\n:state\n")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix(#"{"pongs":0,"total":2}"#), "\(run.stdout)")
  }

  @Test func onlyTheRulesDecidedIn1_1AreNotedForA1_0Plugin() {
    let newer = ConformanceCheck.allCases.filter { $0.minor == 1 }.map(\.name)
    #expect(
      newer == [
        "null-arguments", "unknown-setting", "extra-members", "lifecycle-action", "refused-arguments",
        "effect-accounting", "callback-phases", "last-error",
      ])
  }
}
