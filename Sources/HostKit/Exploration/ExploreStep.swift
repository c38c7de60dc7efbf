import FeatureJSON

/// One step of an exploration: an action from the feature's catalogue, or a host command typed
/// between actions (`:undo`, `:goto 3`, `:reload`). Written as the line a user would type.
public enum ExploreStep: Hashable, Sendable, CustomStringConvertible {
  case action(type: String, arguments: [Argument])
  case command(String)

  /// One argument of an action, in catalogue order.
  public struct Argument: Hashable, Sendable {
    public var name: String
    public var value: JSONValue

    public init(name: String, value: JSONValue) {
      self.name = name
      self.value = value
    }
  }

  /// The line typed for it: `set left=3 right=9`; raw JSON when a string would need quoting.
  public var line: String {
    switch self {
    case .command(let text): return text
    case .action(let type, let arguments):
      // Drawn at every step: most actions have no arguments.
      if arguments.isEmpty { return type }
      if arguments.contains(where: { !Self.isBare($0.value) }) { return json }
      return ([type] + arguments.map { "\($0.name)=\(Self.bare($0.value))" }).joined(separator: " ")
    }
  }

  /// The action as a JSON object (a command: its text).
  public var json: String {
    guard case .action(let type, let arguments) = self else { return line }
    var object: [String: JSONValue] = ["type": .string(type)]
    for argument in arguments { object[argument.name] = argument.value }
    return JSONValue.object(object).serialized()
  }

  public var description: String { line }

  public var isAction: Bool {
    if case .action = self { true } else { false }
  }

  /// Whether `value` can be typed without quotes: numbers, booleans, plain words.
  private static func isBare(_ value: JSONValue) -> Bool {
    guard case .string(let text) = value else { return true }
    return !text.isEmpty
      && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
      && Double(text) == nil && !["true", "false", "null"].contains(text)
  }

  private static func bare(_ value: JSONValue) -> String {
    if case .string(let text) = value { return text }
    return value.serialized()
  }
}
