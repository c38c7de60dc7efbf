/// How one check ended: passed, failed with one line that names the offending value, passed by
/// the rules of the plugin's own ABI minor with a note on a newer rule it breaks, or skipped
/// because a check it needs failed first.
public enum ConformanceVerdict: Sendable, Equatable {
  case pass
  case fail(String)
  /// Passed by the rules of the minor the plugin declares; a newer minor's rule, which it breaks,
  /// is said (`why`) as advice.
  case note(String)
  /// Not run: `needs` (a structural check, or the manifest a check is built on) did not pass.
  case skip(needs: ConformanceCheck)

  /// Whether the plugin keeps the check's rule as its own minor has it (a note passes).
  public var passed: Bool {
    switch self {
    case .pass, .note: true
    case .fail, .skip: false
    }
  }

  public var skipped: Bool {
    if case .skip = self { return true }
    return false
  }

  /// The report line: `pass  NAME`, `fail  NAME  WHY`, `note  NAME  WHY` or `skip  NAME  needs: CHECK`.
  public func reportLine(for check: ConformanceCheck) -> String {
    switch self {
    case .pass: "pass  \(check.name)"
    case .fail(let why): "fail  \(check.name)  \(why)"
    case .note(let why): "note  \(check.name)  \(why)"
    case .skip(let needs): "skip  \(check.name)  needs: \(needs.name)"
    }
  }
}
