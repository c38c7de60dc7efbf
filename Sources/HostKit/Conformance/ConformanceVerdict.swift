/// How one check ended: passed, failed with one line that names the offending value, or skipped
/// because a check it needs failed first.
public enum ConformanceVerdict: Sendable, Equatable {
  case pass
  case fail(String)
  /// Not run: `needs` (a structural check) did not pass.
  case skip(needs: ConformanceCheck)

  public var passed: Bool { self == .pass }

  public var skipped: Bool {
    if case .skip = self { return true }
    return false
  }

  /// The report line: `pass  NAME`, `fail  NAME  WHY` or `skip  NAME  needs: CHECK`.
  public func reportLine(for check: ConformanceCheck) -> String {
    switch self {
    case .pass: "pass  \(check.name)"
    case .fail(let why): "fail  \(check.name)  \(why)"
    case .skip(let needs): "skip  \(check.name)  needs: \(needs.name)"
    }
  }
}
