/// Something the sandbox refused a plugin: what it tried, and the path or port it tried it on.
///
/// The host words it for a person: "kittens tried to connect to port 8080, which it did not
/// declare (sandbox refused)".
public struct SandboxRefusal: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// Reading a file or a folder; `subject` is its absolute path.
    case read
    /// Writing, creating, renaming, removing or truncating; `subject` is the absolute path (for a
    /// rename or a link, `from -> to`).
    case write
    /// A TCP connection; `subject` is the port.
    case connect
    /// Binding an internet socket; `subject` is the port.
    case bind
    /// Making a socket of a family it may not: `subject` is `local` (a unix socket, never
    /// allowed) or `network` (an internet socket, without a declared port).
    case socket
  }

  public var kind: Kind
  public var subject: String

  public init(kind: Kind, subject: String) {
    self.kind = kind
    self.subject = subject
  }
}
