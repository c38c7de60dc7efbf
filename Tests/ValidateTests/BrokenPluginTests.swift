import FeatureTesting
import Testing

/// Each variant of the fixture plugin breaks one rule of the contract; `host validate` must fail
/// that check and only that check (a restore that accepts anything breaks three rules at once),
/// and, when the plugin cannot even be opened, skip every later one, counted apart.
@Suite("host validate on plugins that break one rule")
struct BrokenPluginTests {
  struct Variant: CustomTestStringConvertible, Sendable {
    let id: String
    /// The BREAK_* macro, or nil for the well-behaved build.
    let define: String?
    /// The checks that must fail, in report order.
    let failing: [String]
    /// The checks that must be skipped (not run: a structural check failed).
    var skipped: [String] = []
    /// A piece of the first failure's reason.
    let why: String
    /// Seconds per check: generous (a parallel test run is slow), short where a check must hang.
    var timeout = 30
    var testDescription: String { id }
  }

  /// Every check after `name`: what a structural failure leaves unrun.
  static func after(_ name: String) -> [String] {
    Array(ValidateReport.allChecks.drop { $0 != name }.dropFirst())
  }

  static let variants: [Variant] = [
    Variant(
      id: "crashes-on-malformed-json", define: "BREAK_CRASH_ON_MALFORMED", failing: ["bad-actions"],
      why: "crashed with signal 11"),
    Variant(
      id: "hangs-on-an-empty-action", define: "BREAK_HANG_ON_EMPTY", failing: ["bad-actions"],
      why: "timed out after 5 s at: dispatch 'empty'", timeout: 5),
    Variant(
      id: "accepts-everything", define: "BREAK_ACCEPT_EVERYTHING", failing: ["bad-actions"],
      why: "returned FH_OK, want FH_ERR_BAD_ACTION"),
    Variant(
      id: "refuses-without-a-message", define: "BREAK_SILENT_REFUSAL", failing: ["bad-actions"],
      why: "last_error() is empty"),
    Variant(
      id: "a-refused-action-changes-the-state", define: "BREAK_BAD_ACTION_CHANGES_STATE", failing: ["bad-actions"],
      why: "but changed the state"),
    Variant(
      id: "restore-is-not-byte-identical", define: "BREAK_RESTORE_NOT_IDENTICAL", failing: ["snapshot-round-trip"],
      why: #"then '{"pongs": 0,"total": 0}'"#),
    Variant(
      id: "restore-accepts-garbage", define: "BREAK_RESTORE_ACCEPTS_GARBAGE",
      failing: ["restore-refuses-bad-state", "extra-members", "deep-nesting"],
      why: "returned FH_OK, want FH_ERR_BAD_STATE"),
    Variant(
      id: "dispatch-before-start-is-allowed", define: "BREAK_DISPATCH_BEFORE_START", failing: ["lifecycle"],
      why: "'dispatch-before-start'"),
    Variant(
      id: "emits-after-stop-from-a-thread", define: "BREAK_EMIT_AFTER_STOP", failing: ["no-emit-after-stop"],
      why: #"after stop returned (right after created) the plugin called emit('{"type":"pong"}')"#),
    Variant(
      id: "state-counts-calls-across-instances", define: "BREAK_NONDETERMINISTIC", failing: ["deterministic"],
      why: "the first instance has"),
    Variant(
      id: "render-with-escape-sequences", define: "BREAK_RENDER_ESCAPES", failing: ["render"],
      why: "control character U+001B at line 1, column 1"),
    Variant(
      id: "manifest-with-an-empty-name", define: "BREAK_EMPTY_NAME", failing: ["manifest"],
      why: "manifest name must be a non-empty string"),
    Variant(
      id: "a-catalogued-action-is-always-refused", define: "BREAK_REFUSE_RESET", failing: ["catalogue"],
      why: "action 'reset' was refused with every sample"),
    Variant(
      id: "refuses-an-action-it-emitted", define: "BREAK_REFUSE_EMITTED", failing: ["catalogue"],
      why: #"emitted '{"type":"pong"}'"#),
    Variant(
      id: "no-entry-symbol", define: "FIXTURE_NO_ENTRY", failing: ["entry"], skipped: after("entry"),
      why: "fh_plugin_entry_v1 is not exported"),
    Variant(
      id: "wrong-abi-major", define: "FIXTURE_WRONG_MAJOR", failing: ["descriptor"], skipped: after("descriptor"),
      why: "built for ABI 2.1 (abi_major 2); this host speaks ABI 1"),
  ]

  @Test(arguments: variants)
  func failsThatCheckAndOnlyThatCheck(_ variant: Variant) throws {
    let plugin = try FixturePlugin.tally(variant.define)
    let report = try ValidateReport.run(plugin, ["--timeout", "\(variant.timeout)"])
    #expect(report.status == 1, "\(report.output.stdout)\(report.output.stderr)")
    let failing = report.lines.compactMap { line in
      line.hasPrefix("fail  ") ? String(line.dropFirst(6).prefix { $0 != " " }) : nil
    }
    #expect(failing == variant.failing, "\(report.output.stdout)")
    let first = variant.failing.first.flatMap { report.failures[$0] } ?? ""
    #expect(first.contains(variant.why), "\(first)")
    #expect(report.skipped.map(\.check) == variant.skipped)
    // A skipped check names the structural one it needs: descriptor needs entry, the rest descriptor.
    #expect(report.skipped.map(\.needs) == variant.skipped.map { $0 == "descriptor" ? "entry" : "descriptor" })
    let total = ValidateReport.allChecks.count
    let passed = total - variant.failing.count - variant.skipped.count
    let skipped = variant.skipped.isEmpty ? "" : ", \(variant.skipped.count) skipped"
    #expect(report.summary == "\(passed) passed, \(variant.failing.count) failed\(skipped)")
  }

  @Test func anActionRefusedAfterCreatedButAcceptedLaterPasses() throws {
    // reset is refused while the total is 0, so the catalogue check must try it after add.
    let report = try ValidateReport.run(try FixturePlugin.tally("RESET_NEEDS_A_TOTAL"), ["--timeout", "30"])
    #expect(report.status == 0, "\(report.output.stdout)")
    #expect(report.summary == "\(ValidateReport.allChecks.count) passed, 0 failed")
  }

  @Test func theWellBehavedFixturePassesEveryCheck() throws {
    let report = try ValidateReport.run(try FixturePlugin.tally(nil), ["--timeout", "30"])
    #expect(report.status == 0, "\(report.output.stdout)")
    #expect(report.passed == ValidateReport.allChecks)
    #expect(report.summary == "\(ValidateReport.allChecks.count) passed, 0 failed")
  }
}
