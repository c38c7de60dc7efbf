import FeatureJSON

/// A flow (RxFlow's idea, declared in JSON): which feature to present for each navigation step.
///
/// Features never decide where to go; they emit steps ("a feature was picked"). A flow maps each
/// step to a navigation:
///
///     {"flow": "main",
///      "start": {"push": "home"},
///      "on": {"featurePicked": {"push": "{feature}"},
///             "dashboardRequested": {"present": ["counter", "levels"]},
///             "closeRequested": {"pop": true},
///             "levelsInstead": {"replace": "levels"}}}
///
/// `push` covers the current features with one more; `present` pushes several shown side by side
/// (like a tab bar; input goes to the focused one); `replace` swaps the top; `pop` goes back. A
/// feature is named by its id, or by `{field}`: the value of that field of the step.
public struct Flow: Sendable, Equatable {
  /// Where a navigation leads.
  public enum Target: Sendable, Equatable {
    case feature(String)
    /// `{field}`: read from the step when it arrives.
    case field(String)

    /// The feature id, taking `{field}` from `step`.
    public func resolve(in step: JSONValue) -> String? {
      switch self {
      case .feature(let id): return id
      case .field(let name): return step[name]?.stringValue
      }
    }
  }

  public enum Navigation: Sendable, Equatable {
    case push(Target)
    case present([Target])
    case replace(Target)
    case pop
  }

  public var name: String
  public var start: Navigation
  public var rules: [String: Navigation]

  public init(name: String, start: Navigation, rules: [String: Navigation] = [:]) {
    self.name = name
    self.start = start
    self.rules = rules
  }

  /// The host's main flow: the home menu, and whatever feature it picks.
  public static let mainJSON = """
    {"flow": "main",
     "start": {"push": "home"},
     "on": {"featurePicked": {"push": "{feature}"}}}
    """

  /// The flow of `host run ID`: that feature alone; `:open` and `:back` still navigate.
  public static func single(_ id: String) -> Flow { Flow(name: id, start: .push(.feature(id))) }

  /// Parses and checks a flow: every feature it names must be among `features`, and every step it
  /// maps must be one that some feature declares in `steps`. Errors name `file` and the line and
  /// column of the offending value.
  public static func load(
    _ text: String, file: String, features: Set<String>, steps: Set<String>
  ) throws(HostError) -> Flow {
    let value: JSONValue
    do {
      value = try JSONValue.parse(text)
    } catch {
      let (line, column) = position(ofByte: error.offset, in: text)
      throw HostError("flow '\(file)' line \(line) column \(column): \(error.message)", help: "fix the JSON")
    }
    func fail(_ message: String, at token: String?, help: String? = nil) -> HostError {
      let place = token.flatMap { locate($0, in: text) }.map { " line \($0.line) column \($0.column)" } ?? ""
      return HostError("flow '\(file)'\(place): \(message)", help: help)
    }
    guard let object = value.objectValue else { throw fail("must be a JSON object", at: nil) }
    guard let name = object["flow"]?.stringValue, !name.isEmpty else {
      throw fail(
        "needs a string \"flow\" naming it", at: nil, help: #"e.g. {"flow": "main", "start": {"push": "home"}}"#)
    }
    func target(_ raw: JSONValue) throws(HostError) -> Target {
      guard let text = raw.stringValue else {
        throw fail("a feature must be a string, got \(raw.serialized())", at: nil)
      }
      if text.hasPrefix("{") && text.hasSuffix("}") && text.count > 2 {
        return .field(String(text.dropFirst().dropLast()))
      }
      guard features.contains(text) else {
        let hint = Suggestion.closest(to: text, in: features.sorted()).map { "did you mean '\($0)'? " } ?? ""
        throw fail(
          "unknown feature '\(text)'", at: "\"\(text)\"",
          help: "\(hint)features found: \(features.sorted().joined(separator: ", "))")
      }
      return .feature(text)
    }
    func navigation(_ raw: JSONValue, at key: String) throws(HostError) -> Navigation {
      guard let spec = raw.objectValue, spec.count == 1, let (verb, argument) = spec.first else {
        throw fail(
          "\(key) must be one of {\"push\": ID}, {\"present\": [IDs]}, {\"replace\": ID}, {\"pop\": true}",
          at: "\"\(key)\"")
      }
      switch verb {
      case "push": return .push(try target(argument))
      case "replace": return .replace(try target(argument))
      case "pop": return .pop
      case "present":
        guard let list = argument.arrayValue, !list.isEmpty else {
          throw fail("\"present\" needs a non-empty list of features", at: "\"present\"")
        }
        var targets: [Target] = []
        for entry in list { targets.append(try target(entry)) }
        return .present(targets)
      default:
        throw fail("unknown navigation '\(verb)'", at: "\"\(verb)\"", help: "use push, present, replace or pop")
      }
    }
    guard let start = object["start"] else {
      throw fail("needs a \"start\"", at: nil, help: #"e.g. "start": {"push": "home"}"#)
    }
    let first = try navigation(start, at: "start")
    switch first {
    case .push, .present: break
    case .replace, .pop: throw fail("start must push or present", at: "\"start\"")
    }
    var rules: [String: Navigation] = [:]
    for (step, rule) in (object["on"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
      guard steps.contains(step) else {
        let hint = Suggestion.closest(to: step, in: steps.sorted()).map { "did you mean '\($0)'? " } ?? ""
        throw fail(
          "unknown step '\(step)': no feature found declares it", at: "\"\(step)\"",
          help: "\(hint)steps declared: \(steps.sorted().joined(separator: ", "))")
      }
      rules[step] = try navigation(rule, at: step)
    }
    return Flow(name: name, start: first, rules: rules)
  }

  /// The 1-based line and column of the first occurrence of `token` in `text`.
  static func locate(_ token: String, in text: String) -> (line: Int, column: Int)? {
    guard let range = text.range(of: token) else { return nil }
    return position(ofByte: text.utf8.distance(from: text.startIndex, to: range.lowerBound), in: text)
  }

  static func position(ofByte offset: Int, in text: String) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    for (index, byte) in text.utf8.enumerated() {
      guard index < offset else { break }
      if byte == 10 {
        line += 1
        column = 1
      } else {
        column += 1
      }
    }
    return (line, column)
  }
}
