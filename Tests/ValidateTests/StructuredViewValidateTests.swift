import FeatureTesting
import Testing

/// `fh.structured_view/1` is optional: `host validate` passes a plugin without it and one that
/// keeps its rules, and fails the render check of one that breaks them, saying which rule.
@Suite("host validate and the structured view")
struct StructuredViewValidateTests {
  static let broken: [BrokenVariant] = [
    BrokenVariant(
      id: "alt-differs-from-the-rendered-line", define: "BREAK_STRUCTURED_VIEW_DIFFERS", check: "render",
      why: "differs from render at line 2: 'total: 0', render has '  total: 0'"),
    BrokenVariant(
      id: "image-without-url", define: "BREAK_STRUCTURED_VIEW_NO_URL", check: "render",
      why: "item 2: the image needs a non-empty string \"url\""),
  ]

  @Test func aPluginOfferingAValidStructuredViewPassesEveryCheck() async throws {
    let report = try await ValidateReport.run(try FixturePlugin.tally("FIXTURE_STRUCTURED_VIEW"), ["--timeout", "30"])
    #expect(report.status == 0, "\(report.output.stdout)")
    #expect(report.passed == ValidateReport.allChecks)
  }

  @Test(arguments: broken)
  func aBrokenStructuredViewFailsTheRenderCheck(_ broken: BrokenVariant) async throws {
    let report = try await broken.expectReported()
    let why = report.failures["render"] ?? ""
    #expect(why.contains("structured view (fh.structured_view/1) after"), "\(why)")
  }
}
