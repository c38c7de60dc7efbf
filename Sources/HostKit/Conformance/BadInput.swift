/// One input a plugin must refuse, with an id the report names.
public struct BadInput: Sendable, Equatable {
  public let id: String
  public let bytes: [UInt8]

  public init(_ id: String, _ bytes: [UInt8]) {
    self.id = id
    self.bytes = bytes
  }

  public init(_ id: String, _ text: String) { self.init(id, Array(text.utf8)) }
}
