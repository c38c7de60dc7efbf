/// An error the host reports to a person: what went wrong, with the offending value quoted, and
/// how to fix it. Rendered in one place (`error: ...` then `help: ...`).
public struct HostError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// The command line is wrong: exit code 64.
    case usage
    /// Anything else: exit code 1.
    case failure
  }

  public var kind: Kind
  public var message: String
  public var help: String?

  public init(_ message: String, help: String? = nil, kind: Kind = .failure) {
    self.message = message
    self.help = help
    self.kind = kind
  }

  public static func usage(_ message: String, help: String? = nil) -> HostError {
    HostError(message, help: help, kind: .usage)
  }

  /// The process exit code for this error: 64 for usage, 1 otherwise.
  public var exitCode: Int32 { kind == .usage ? 64 : 1 }

  /// `error: <message>` and, when there is one, `help: <help>` on the next line.
  public var description: String {
    guard let help else { return "error: \(message)" }
    return "error: \(message)\nhelp: \(help)"
  }
}
