/// The lines a check process writes for the validator that started it, one per line:
/// `step TEXT` whenever it begins a new piece of work (so a crash can be placed), then
/// `pass`, `fail WHY`, `note WHY` or `skip CHECK` once at the end.
public enum VerdictLine: Sendable, Equatable {
  case step(String)
  case verdict(ConformanceVerdict)

  /// The line to write, without its newline; any line break inside is escaped.
  public var text: String {
    switch self {
    case .step(let text): "step \(ConformanceText.oneLine(text))"
    case .verdict(.pass): "pass"
    case .verdict(.fail(let why)): "fail \(ConformanceText.oneLine(why))"
    case .verdict(.note(let why)): "note \(ConformanceText.oneLine(why))"
    case .verdict(.skip(let needs)): "skip \(needs.name)"
    }
  }

  /// Reads one line written by `text`; nil for anything else.
  public init?(parsing line: Substring) {
    if line == "pass" {
      self = .verdict(.pass)
    } else if line.hasPrefix("fail ") {
      self = .verdict(.fail(String(line.dropFirst(5))))
    } else if line.hasPrefix("note ") {
      self = .verdict(.note(String(line.dropFirst(5))))
    } else if line.hasPrefix("skip "), let needs = ConformanceCheck(rawValue: String(line.dropFirst(5))) {
      self = .verdict(.skip(needs: needs))
    } else if line.hasPrefix("step ") {
      self = .step(String(line.dropFirst(5)))
    } else {
      return nil
    }
  }
}
