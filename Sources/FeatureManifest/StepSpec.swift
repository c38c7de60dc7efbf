/// A navigation step a feature emits: what happened, for flows to map to a destination.
public struct StepSpec: Sendable, Equatable {
  public var step: String
  public var help: String

  public init(_ step: String, help: String) {
    self.step = step
    self.help = help
  }
}
