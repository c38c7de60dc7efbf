import FeatureTesting
import HostKit

/// What `host validate` printed, read back: the checks that passed and failed (with why), the
/// summary line and the exit code.
struct ValidateReport {
  let output: HostProcess.Output
  var status: Int32 { output.status }
  var lines: [String] { output.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

  /// Check name -> why, for each `fail  NAME  WHY` line.
  var failures: [String: String] {
    var result: [String: String] = [:]
    for line in lines where line.hasPrefix("fail  ") {
      let rest = line.dropFirst(6)
      let name = rest.prefix { $0 != " " }
      result[String(name)] = String(rest.dropFirst(name.count + 2))
    }
    return result
  }

  var passed: [String] { lines.filter { $0.hasPrefix("pass  ") }.map { String($0.dropFirst(6)) } }

  /// Each `skip  NAME  needs: CHECK` line, in order.
  var skipped: [(check: String, needs: String)] {
    lines.filter { $0.hasPrefix("skip  ") }.map { line in
      let rest = line.dropFirst(6)
      let name = rest.prefix { $0 != " " }
      return (String(name), String(rest.dropFirst(name.count + 2).dropFirst("needs: ".count)))
    }
  }

  /// The last non-empty line.
  var summary: String { lines.last { !$0.isEmpty } ?? "" }

  /// Runs `host validate plugin arguments...`.
  static func run(_ plugin: String, _ arguments: [String] = []) async throws -> ValidateReport {
    ValidateReport(output: try await HostProcess.run(["validate", plugin] + arguments))
  }

  /// Every check name, in report order.
  static let allChecks = ConformanceCheck.allCases.map(\.name)
}
