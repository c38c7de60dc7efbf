import FeatureTesting
import Testing

/// Each variant of the fixture plugin breaks one rule of the contract; `host validate` must fail
/// that check and only that check (a restore that accepts anything breaks three rules at once),
/// and, when the plugin cannot even be opened, skip every later one, counted apart.
@Suite("host validate on plugins that break one rule")
struct BrokenPluginTests {
  static let variants: [BrokenVariant] = [
    BrokenVariant(
      id: "crashes-on-malformed-json", define: "BREAK_CRASH_ON_MALFORMED", failing: ["bad-actions"],
      why: "crashed with signal 11"),
    BrokenVariant(
      id: "hangs-on-an-empty-action", define: "BREAK_HANG_ON_EMPTY", failing: ["bad-actions"],
      why: "timed out after 5 s at: dispatch 'empty'", timeout: 5),
    BrokenVariant(
      id: "accepts-everything", define: "BREAK_ACCEPT_EVERYTHING", failing: ["bad-actions"],
      why: "returned FH_OK, want FH_ERR_BAD_ACTION"),
    BrokenVariant(
      id: "refuses-without-a-message", define: "BREAK_SILENT_REFUSAL", failing: ["bad-actions"],
      why: "last_error() is empty"),
    BrokenVariant(
      id: "a-refused-action-changes-the-state", define: "BREAK_BAD_ACTION_CHANGES_STATE", failing: ["bad-actions"],
      why: "but changed the state"),
    BrokenVariant(
      id: "restore-is-not-byte-identical", define: "BREAK_RESTORE_NOT_IDENTICAL", failing: ["snapshot-round-trip"],
      why: #"then '{"pongs": 0,"total": 0}'"#),
    BrokenVariant(
      id: "restore-accepts-garbage", define: "BREAK_RESTORE_ACCEPTS_GARBAGE",
      failing: ["restore-refuses-bad-state", "extra-members", "deep-nesting"],
      why: "returned FH_OK, want FH_ERR_BAD_STATE"),
    BrokenVariant(
      id: "dispatch-before-start-is-allowed", define: "BREAK_DISPATCH_BEFORE_START", failing: ["lifecycle"],
      why: "'dispatch-before-start'"),
    BrokenVariant(
      id: "emits-after-stop-from-a-thread", define: "BREAK_EMIT_AFTER_STOP", failing: ["no-emit-after-stop"],
      why: #"after stop returned (right after created) the plugin called emit('{"type":"pong"}')"#),
    BrokenVariant(
      id: "state-counts-calls-across-instances", define: "BREAK_NONDETERMINISTIC", failing: ["deterministic"],
      why: "the first instance has"),
    BrokenVariant(
      id: "render-with-escape-sequences", define: "BREAK_RENDER_ESCAPES", failing: ["render"],
      why: "control character U+001B at line 1, column 1"),
    BrokenVariant(
      id: "manifest-with-an-empty-name", define: "BREAK_EMPTY_NAME", failing: ["manifest"],
      why: "manifest name must be a non-empty string"),
    BrokenVariant(
      id: "a-catalogued-action-is-always-refused", define: "BREAK_REFUSE_RESET", failing: ["catalogue"],
      why: "action 'reset' was refused with every sample"),
    BrokenVariant(
      id: "refuses-an-action-it-emitted", define: "BREAK_REFUSE_EMITTED", failing: ["catalogue"],
      why: #"emitted '{"type":"pong"}'"#),
    BrokenVariant(
      id: "no-entry-symbol", define: "FIXTURE_NO_ENTRY", failing: ["entry"], skipped: BrokenVariant.after("entry"),
      why: "fh_plugin_entry_v1 is not exported"),
    BrokenVariant(
      id: "wrong-abi-major", define: "FIXTURE_WRONG_MAJOR", failing: ["descriptor"],
      skipped: BrokenVariant.after("descriptor"),
      why: "built for ABI 2.1 (abi_major 2); this host speaks ABI 1"),
  ]

  @Test(arguments: variants)
  func failsThatCheckAndOnlyThatCheck(_ variant: BrokenVariant) async throws {
    try await variant.expectReported()
  }

  @Test func anActionRefusedAfterCreatedButAcceptedLaterPasses() async throws {
    // reset is refused while the total is 0, so the catalogue check must try it after add.
    let report = try await ValidateReport.run(try FixturePlugin.tally("RESET_NEEDS_A_TOTAL"), ["--timeout", "30"])
    #expect(report.status == 0, "\(report.output.stdout)")
    #expect(report.summary == "\(ValidateReport.allChecks.count) passed, 0 failed")
  }

  @Test func theWellBehavedFixturePassesEveryCheck() async throws {
    let report = try await ValidateReport.run(try FixturePlugin.tally(nil), ["--timeout", "30"])
    #expect(report.status == 0, "\(report.output.stdout)")
    #expect(report.passed == ValidateReport.allChecks)
    #expect(report.summary == "\(ValidateReport.allChecks.count) passed, 0 failed")
  }
}
