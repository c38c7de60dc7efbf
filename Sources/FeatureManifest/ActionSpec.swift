/// One action a user may type, with its arguments and help.
public struct ActionSpec: Sendable, Equatable {
  public var type: String
  public var help: String
  public var arguments: [ArgumentSpec]

  public init(_ type: String, help: String, arguments: [ArgumentSpec] = []) {
    self.type = type
    self.help = help
    self.arguments = arguments
  }
}
