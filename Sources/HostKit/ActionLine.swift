import FeatureJSON

/// Turns a typed line into an action JSON object, checked against the feature's catalogue:
/// `increment`, `set left=3 right=9`, `rename name="two words"`, or raw JSON (`{"type": ...}`).
public enum ActionLine {
  public static func parse(_ line: String, manifest: Manifest) throws(HostError) -> String {
    let trimmed = line.trimmingWhitespace()
    if trimmed.hasPrefix("{") { return try parseJSON(trimmed, manifest: manifest) }
    let words = try tokenize(trimmed)
    guard let type = words.first else { throw HostError(ActionLineFailure.empty) }
    if Manifest.lifecycleTypes.contains(type) {
      throw HostError(ActionLineFailure.lifecycle(type: type, actions: names(manifest)))
    }
    guard let action = manifest.action(named: type) else {
      throw HostError(
        ActionLineFailure.unknownAction(
          type: type, feature: manifest.id, suggestion: Suggestion.closest(to: type, in: names(manifest)),
          actions: names(manifest)))
    }
    var object: [String: JSONValue] = ["type": .string(type)]
    for word in words.dropFirst() {
      guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
        throw HostError(ActionLineFailure.notNameValue(type: type, word: word, usage: usage(action)))
      }
      let name = String(word[..<equals])
      let text = String(word[word.index(after: equals)...])
      guard let argument = action.arguments.first(where: { $0.name == name }) else {
        let suggestion = Suggestion.closest(to: name, in: action.arguments.map(\.name))
        throw HostError(
          ActionLineFailure.unknownArgument(type: type, name: name, suggestion: suggestion, usage: usage(action)))
      }
      guard object[name] == nil else {
        throw HostError(ActionLineFailure.argumentTwice(name: name, usage: usage(action)))
      }
      object[name] = try value(text, for: argument, of: type)
    }
    if let missing = action.arguments.first(where: { $0.required && object[$0.name] == nil }) {
      throw HostError(
        ActionLineFailure.missingArgument(
          type: type, name: missing.name, kind: missing.kind.rawValue, usage: usage(action)))
    }
    return JSONValue.object(object).serialized()
  }

  /// `set left=<integer> right=<integer>`, with optional arguments in brackets.
  public static func usage(_ action: ActionSpec) -> String {
    ([action.type]
      + action.arguments.map { $0.required ? "\($0.name)=<\($0.kind.rawValue)>" : "[\($0.name)=<\($0.kind.rawValue)>]" })
      .joined(separator: " ")
  }

  private static func names(_ manifest: Manifest) -> [String] {
    manifest.actions.map(\.type)
  }

  private static func parseJSON(_ text: String, manifest: Manifest) throws(HostError) -> String {
    let value: JSONValue
    do {
      value = try JSONValue.parse(text)
    } catch {
      throw HostError(ActionLineFailure.invalidJSON(reason: "\(error)"))
    }
    guard let type = value["type"]?.stringValue else {
      throw HostError(ActionLineFailure.noType(json: value.serialized()))
    }
    if Manifest.lifecycleTypes.contains(type) {
      throw HostError(ActionLineFailure.lifecycle(type: type, actions: names(manifest)))
    }
    return value.serialized()
  }

  private static func value(
    _ text: String, for argument: ArgumentSpec, of type: String
  ) throws(HostError) -> JSONValue {
    func bad() -> HostError {
      HostError(
        ActionLineFailure.badValue(
          type: type, name: argument.name, text: text, kind: argument.kind, help: argument.help))
    }
    switch argument.kind {
    case .string: return .string(text)
    case .integer:
      guard let int = Int64(text) else { throw bad() }
      return .number(.int(int))
    case .number:
      guard let double = Double(text), double.isFinite else { throw bad() }
      return .number(.double(double))
    case .boolean:
      switch text {
      case "true", "yes", "on", "1": return .bool(true)
      case "false", "no", "off", "0": return .bool(false)
      default: throw bad()
      }
    }
  }

  /// Splits on spaces; double or single quotes keep spaces inside a value.
  static func tokenize(_ line: String) throws(HostError) -> [String] {
    var words: [String] = []
    var current = ""
    var quote: Character?
    var inWord = false
    for character in line {
      if let open = quote {
        if character == open { quote = nil } else { current.append(character) }
      } else if character == "\"" || character == "'" {
        quote = character
        inWord = true
      } else if character == " " || character == "\t" {
        if inWord { words.append(current) }
        current = ""
        inWord = false
      } else {
        current.append(character)
        inWord = true
      }
    }
    if let open = quote { throw HostError(ActionLineFailure.unterminatedQuote(quote: open, line: line)) }
    if inWord { words.append(current) }
    return words
  }
}

extension String {
  /// The string with spaces in front, to `length` characters.
  public func leftPadded(to length: Int) -> String {
    count >= length ? self : String(repeating: " ", count: length - count) + self
  }

  /// The string without leading and trailing spaces, tabs and line ends.
  public func trimmingWhitespace() -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
      return ""
    }
    return String(self[first...last])
  }
}
