import Testing

/// One row of a table of command lines the built `host` must refuse (or answer): the arguments,
/// the exit status and the stderr expected, under an id the test report shows.
public struct UsageCase: CustomTestStringConvertible, Sendable {
  public let id: String
  public let arguments: [String]
  public let status: Int32
  public let stderr: String

  public init(id: String, arguments: [String], status: Int32, stderr: String) {
    self.id = id
    self.arguments = arguments
    self.status = status
    self.stderr = stderr
  }

  public var testDescription: String { id }
}
