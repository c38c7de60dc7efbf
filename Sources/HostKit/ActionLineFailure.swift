/// Why a typed line is not an action of the feature's catalogue.
public enum ActionLineFailure: EngineFailure, Equatable {
  /// The line holds no word.
  case empty
  /// `created`/`restored`: only the host sends those. `actions` lists the catalogue.
  case lifecycle(type: String, actions: [String])
  /// No action of that name; `suggestion` is the closest name, if any is close.
  case unknownAction(type: String, feature: String, suggestion: String?, actions: [String])
  /// A word after the action name that is not `name=value`.
  case notNameValue(type: String, word: String, usage: String)
  /// An argument the action does not declare.
  case unknownArgument(type: String, name: String, suggestion: String?, usage: String)
  /// One argument given twice.
  case argumentTwice(name: String, usage: String)
  /// A required argument left out.
  case missingArgument(type: String, name: String, kind: String, usage: String)
  /// A value that is not of the argument's kind; `help` is the argument's own help.
  case badValue(type: String, name: String, text: String, kind: ArgumentSpec.Kind, help: String)
  /// Raw JSON that does not parse; `reason` is the parser's message.
  case invalidJSON(reason: String)
  /// Raw JSON without a string `type`.
  case noType(json: String)
  /// A quote left open.
  case unterminatedQuote(quote: Character, line: String)

  public var description: String {
    switch self {
    case .empty: "empty action"
    case .lifecycle(let type, _): "'\(type)' is a lifecycle action only the host sends"
    case .unknownAction(let type, let feature, _, _): "unknown action '\(type)' for \(feature)"
    case .notNameValue(let type, let word, _):
      "expected name=value after '\(type)', got '\(word)'"
    case .unknownArgument(let type, let name, _, _): "'\(type)' has no argument '\(name)'"
    case .argumentTwice(let name, _): "argument '\(name)' is given twice"
    case .missingArgument(let type, let name, let kind, _): "'\(type)' needs \(name)=<\(kind)>"
    case .badValue(let type, let name, let text, let kind, _):
      "argument \(name)='\(text)' of '\(type)' must be \(kind == .integer ? "an" : "a") \(kind.rawValue)"
    case .invalidJSON(let reason): reason
    case .noType(let json): "a raw action needs a string \"type\", got \(Excerpt.of(json))"
    case .unterminatedQuote(let quote, let line): "unterminated \(quote) in '\(line)'"
    }
  }

  public var advice: String? {
    switch self {
    case .empty, .noType: nil
    case .lifecycle(_, let actions): "type one of: \(actions.joined(separator: ", "))"
    case .unknownAction(_, _, let suggestion, let actions):
      "\(Self.hint(suggestion))actions: \(actions.joined(separator: ", "))"
    case .notNameValue(_, _, let usage), .argumentTwice(_, let usage), .missingArgument(_, _, _, let usage):
      "usage: \(usage)"
    case .unknownArgument(_, _, let suggestion, let usage): "\(Self.hint(suggestion))usage: \(usage)"
    case .badValue(_, let name, _, _, let help): help.isEmpty ? nil : "\(name): \(help)"
    case .invalidJSON: "a raw action is one JSON object, e.g. {\"type\":\"increment\"}"
    case .unterminatedQuote: "close the quote"
    }
  }

  /// `did you mean 'x'? ` before the rest of the advice, or nothing.
  static func hint(_ suggestion: String?) -> String {
    suggestion.map { "did you mean '\($0)'? " } ?? ""
  }
}
