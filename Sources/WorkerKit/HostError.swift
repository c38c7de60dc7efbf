/// An error the host reports to a person: what went wrong, with the offending value quoted, and
/// how to fix it. Rendered in one place (`error: ...` then `help: ...`).
///
/// Errors made by the engine carry their structured `failure`; its wording names no command-line
/// flag or `:` command, so a front end (the CLI) adds its own help for it.
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
  /// The engine's structured failure behind this error, when it came from the engine.
  public var failure: (any EngineFailure)?
  /// The line of input (from 1) that caused it, when input is read as numbered lines (a pipe):
  /// a front end shows it before the message.
  public var inputLine: Int?

  public init(_ message: String, help: String? = nil, kind: Kind = .failure) {
    self.message = message
    self.help = help
    self.kind = kind
  }

  /// The error an engine failure reads as, before a front end words its help.
  public init(_ failure: some EngineFailure) {
    self.init(failure.description, help: failure.advice)
    self.failure = failure
  }

  public static func usage(_ message: String, help: String? = nil) -> HostError {
    HostError(message, help: help, kind: .usage)
  }

  /// The process exit code for this error: 64 for usage, 1 otherwise.
  public var exitCode: Int32 { kind == .usage ? 64 : 1 }

  /// `error: <message>` (after `line N: ` for an input line) and, when there is one, `help: <help>`
  /// on the next line.
  public var description: String {
    let line = inputLine.map { "line \($0): " } ?? ""
    guard let help else { return "error: \(line)\(message)" }
    return "error: \(line)\(message)\nhelp: \(help)"
  }

  public static func == (lhs: HostError, rhs: HostError) -> Bool {
    lhs.kind == rhs.kind && lhs.message == rhs.message && lhs.help == rhs.help
      && lhs.failure?.description == rhs.failure?.description && lhs.inputLine == rhs.inputLine
  }
}

/// A failure of the engine as a value: a type per domain (journal, store, navigation, ...) with a
/// case per failure and the offending values as associated values.
///
/// `description` says what went wrong, quoting the values; `advice` says how to fix it in words
/// that hold for any front end: no command-line flags, no `:` commands. A front end that has
/// better help (the CLI naming its flags) switches on the cases.
public protocol EngineFailure: Error, Sendable, CustomStringConvertible {
  /// How to fix it, with no front end's words; nil when there is nothing to advise.
  var advice: String? { get }
}
