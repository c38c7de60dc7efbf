/// One argument of a typed action: `set left=3` has the integer argument `left`.
public struct ArgumentSpec: Sendable, Equatable {
  /// The JSON type of its value, as the manifest names it.
  public enum Kind: String, Sendable, CaseIterable { case integer, number, string, boolean }

  public var name: String
  public var kind: Kind
  public var help: String
  public var required: Bool

  public init(_ name: String, _ kind: Kind, help: String, required: Bool = true) {
    self.name = name
    self.kind = kind
    self.help = help
    self.required = required
  }
}
