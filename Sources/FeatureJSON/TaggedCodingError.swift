/// Why a value did not have the shape `TaggedCoding` converts.
public struct TaggedCodingError: Error, Sendable, Hashable, CustomStringConvertible {
  public let message: String

  public init(message: String) {
    self.message = message
  }

  public var description: String { message }
}
