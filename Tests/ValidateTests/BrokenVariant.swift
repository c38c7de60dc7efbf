import FeatureTesting
import Testing

/// A build of the fixture plugin that breaks some rules of the contract, and what `host validate`
/// must report of it: the checks that fail, and only those, and the checks skipped.
struct BrokenVariant: CustomTestStringConvertible, Sendable {
  let id: String
  /// The macro the fixture is built with (BREAK_*, FIXTURE_* or CONTRACT_*), or nil for the
  /// well-behaved build.
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

  /// Every check after `name`: what a structural failure leaves unrun.
  static func after(_ name: String) -> [String] {
    Array(ValidateReport.allChecks.drop { $0 != name }.dropFirst())
  }

  /// Builds the variant, validates it, and expects the report to fail exactly `failing` (the
  /// first for `why`) and skip exactly `skipped`, each skipped check naming the one it needs.
  @discardableResult
  func expectReported(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ValidateReport {
    let plugin = try FixturePlugin.tally(define)
    let report = try await ValidateReport.run(plugin, ["--timeout", "\(timeout)"])
    #expect(report.status == 1, "\(report.output.stdout)\(report.output.stderr)", sourceLocation: sourceLocation)
    let failingInOrder = report.lines.compactMap { line in
      line.hasPrefix("fail  ") ? String(line.dropFirst(6).prefix { $0 != " " }) : nil
    }
    #expect(failingInOrder == failing, "\(report.output.stdout)", sourceLocation: sourceLocation)
    let first = failing.first.flatMap { report.failures[$0] } ?? ""
    #expect(first.contains(why), "\(first)", sourceLocation: sourceLocation)
    #expect(report.skipped.map(\.check) == skipped, sourceLocation: sourceLocation)
    // A skipped check names the structural one it needs: descriptor needs entry, the rest descriptor.
    #expect(
      report.skipped.map(\.needs) == skipped.map { $0 == "descriptor" ? "entry" : "descriptor" },
      sourceLocation: sourceLocation)
    let total = ValidateReport.allChecks.count
    let passed = total - failing.count - skipped.count
    let skippedText = skipped.isEmpty ? "" : ", \(skipped.count) skipped"
    #expect(report.summary == "\(passed) passed, \(failing.count) failed\(skippedText)", sourceLocation: sourceLocation)
    return report
  }
}

extension BrokenVariant {
  /// A variant that fails the one check `check`, named `id` (by default, after that check).
  init(id: String? = nil, define: String, check: String, why: String) {
    self.init(id: id ?? check, define: define, failing: [check], why: why)
  }
}
