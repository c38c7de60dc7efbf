/// How one check ended: passed, or failed with one line that names the offending value.
public enum ConformanceVerdict: Sendable, Equatable {
  case pass
  case fail(String)

  public var passed: Bool { self == .pass }

  /// The report line: `pass  NAME` or `fail  NAME  WHY`.
  public func reportLine(for check: ConformanceCheck) -> String {
    switch self {
    case .pass: "pass  \(check.name)"
    case .fail(let why): "fail  \(check.name)  \(why)"
    }
  }
}
