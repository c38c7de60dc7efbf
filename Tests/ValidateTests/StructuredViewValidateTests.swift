import FeatureTesting
import Testing

/// `fh.structured_view/1` is optional: `host validate` passes a plugin without it and one that
/// keeps its rules, and fails the render check of one that breaks them, saying which rule.
@Suite("host validate and the structured view")
struct StructuredViewValidateTests {
  struct Case: CustomTestStringConvertible, Sendable {
    let id: String
    let define: String
    let why: String
    var testDescription: String { id }
  }

  static let broken: [Case] = [
    Case(
      id: "alt-differs-from-the-rendered-line", define: "BREAK_STRUCTURED_VIEW_DIFFERS",
      why: "differs from render at line 2: 'total: 0', render has '  total: 0'"),
    Case(
      id: "image-without-url", define: "BREAK_STRUCTURED_VIEW_NO_URL",
      why: "item 2: the image needs a non-empty string \"url\""),
  ]

  @Test func aPluginOfferingAValidStructuredViewPassesEveryCheck() throws {
    let report = try ValidateReport.run(try FixturePlugin.tally("FIXTURE_STRUCTURED_VIEW"), ["--timeout", "30"])
    #expect(report.status == 0, "\(report.output.stdout)")
    #expect(report.passed == ValidateReport.allChecks)
  }

  @Test(arguments: broken)
  func aBrokenStructuredViewFailsTheRenderCheck(_ broken: Case) throws {
    let report = try ValidateReport.run(try FixturePlugin.tally(broken.define), ["--timeout", "30"])
    #expect(report.status == 1, "\(report.output.stdout)")
    #expect(report.failures.keys.sorted() == ["render"], "\(report.output.stdout)")
    let why = report.failures["render"] ?? ""
    #expect(why.contains("structured view (fh.structured_view/1) after"), "\(why)")
    #expect(why.contains(broken.why), "\(why)")
  }
}
