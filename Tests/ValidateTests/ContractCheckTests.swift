import FeatureTesting
import HostKit
import Testing

/// The checks of the rules feature_abi.h decides: each has a variant of the contract fixture
/// (Tests/Fixtures/contract/contract_plugin.c) that breaks that rule alone, and fails only it.
@Suite("host validate on plugins that break one decided rule")
struct ContractCheckTests {
  static let variants: [BrokenVariant] = [
    BrokenVariant(define: "CONTRACT_BREAK_NULL_ACTION", check: "null-arguments", why: "crashed with signal 11"),
    BrokenVariant(
      define: "CONTRACT_BREAK_UNKNOWN_SETTING", check: "unknown-setting",
      why: "create with the unknown setting 'zz_not_a_member' returned FH_OK, want FH_ERR_BAD_CONFIG"),
    BrokenVariant(
      define: "CONTRACT_BREAK_EXTRA_MEMBER", check: "extra-members",
      why: #"dispatch of {"amount":1,"type":"add","zz_not_a_member":1} returned FH_OK"#),
    BrokenVariant(
      define: "CONTRACT_BREAK_EARLY_ACTION", check: "lifecycle-action",
      why: "before the lifecycle action returned FH_OK, want FH_ERR_LIFECYCLE"),
    BrokenVariant(
      define: "CONTRACT_BREAK_APPLIES_REFUSED", check: "refused-arguments",
      why: #"but changed the state from '{"pongs":0,"total":0}'"#),
    BrokenVariant(
      define: "CONTRACT_BREAK_DEEP_RESTORE", check: "deep-nesting",
      why: "crashed with signal 11 (Segmentation fault) at: restore with 'pongs' nested"),
    BrokenVariant(
      define: "CONTRACT_BREAK_EMIT_NO_EFFECT", check: "effect-accounting",
      why: "outside dispatch with no effect in flight"),
    BrokenVariant(define: "CONTRACT_BREAK_EMIT_IN_START", check: "callback-phases", why: "during start"),
    BrokenVariant(
      define: "CONTRACT_BREAK_LAST_ERROR", check: "last-error",
      why: "last_error() changed the string snapshot had just returned"),
    BrokenVariant(
      define: "CONTRACT_BREAK_UNDECLARED_READ", check: "sandbox",
      why: "it tried to read /etc/passwd, which it did not declare (sandbox refused); declare it in the manifest's "
        + "needs.read"),
  ]

  @Test(arguments: variants)
  func failsThatCheckAndOnlyThatCheck(_ variant: BrokenVariant) async throws {
    try await variant.expectReported()
  }

  @Test func everyDecidedCheckHasAVariant() {
    let structural = ["loads", "entry", "descriptor", "manifest"]
    let older = [
      "catalogue", "bad-actions", "snapshot-round-trip", "restore-refuses-bad-state", "lifecycle",
      "no-emit-after-stop", "deterministic", "render",
    ]
    let decided = ValidateReport.allChecks.filter { !structural.contains($0) && !older.contains($0) }
    #expect(decided == Self.variants.map(\.id))
    #expect(ValidateReport.allChecks.count >= 18)
  }
}

/// `list` (the loader) and `validate` read a plugin by one set of rules (DescriptorRules): what
/// one refuses the other fails, for the same reason, and what one loads the other passes.
@Suite("list, run and validate agree on what is loadable")
struct LoadAgreementTests {
  @Test func aNonZeroReservedIsRefusedByBoth() async throws {
    let path = try FixturePlugin.tally("CONTRACT_RESERVED")
    let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path) }
    #expect(error?.reason == .badDescriptor)
    #expect(error?.message == "'\(path)': the descriptor's reserved field is 1, not 0")
    let report = try await ValidateReport.run(path)
    #expect(report.failures == ["descriptor": "the descriptor's reserved field is 1, not 0"])
  }

  @Test func aManifestWithoutHelpOrDescriptionIsLoadedByBoth() async throws {
    let path = try FixturePlugin.tally("CONTRACT_NO_HELP")
    let plugin = try PluginLoader.load(path)
    #expect(plugin.manifest.actions.map(\.help) == ["", "", ""])
    #expect(plugin.manifest.description == "")
    let report = try await ValidateReport.run(path, ["--timeout", "30"])
    #expect(report.failures.isEmpty, "\(report.output.stdout)")
    #expect(report.passed.contains("manifest"))
  }

  @Test func aManifestWithAnEmptyNameIsRefusedByBothWithOneReason() async throws {
    let path = try FixturePlugin.tally("BREAK_EMPTY_NAME")
    let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path) }
    let report = try await ValidateReport.run(path, ["--timeout", "30"])
    let why = try #require(report.failures["manifest"])
    #expect(error?.message == "'\(path)': \(why)")
  }
}
