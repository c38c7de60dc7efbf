/// Why a manifest was refused: one message naming the field that is wrong.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
  public let message: String
  init(_ message: String) { self.message = message }
  public var description: String { message }
}
