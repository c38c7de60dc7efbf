/// What a plugin declares it needs beyond computing: the TCP ports it connects to and the paths it
/// reads or writes. A worker grants these and nothing else (see `grants(config:environment:)`).
///
/// Empty by default: a feature that only computes declares nothing. The host checks a manifest's
/// needs when it reads it (`Manifest(json:)`): a port is 1...65535, a path is absolute (or starts
/// with `~/`, the home folder), a setting is named.
public struct Needs: Sendable, Equatable {
  /// One thing needed: a fixed port or path, or the config setting whose value names it.
  public enum Target: Sendable, Equatable {
    /// A TCP port, 1...65535 (only in `connect`).
    case port(UInt16)
    /// An absolute path, or one starting with `~/` (only in `read` and `write`): a file, or a
    /// folder and everything beneath it.
    case path(String)
    /// The value of the config setting `name`, else of the environment variable `environment`,
    /// else `default` (the order a feature reads its settings in). In `connect` the value is an
    /// http or https URL or a port number; in `read` and `write` an absolute path or a `file:` URL.
    case setting(name: String, environment: String? = nil, default: String? = nil)
  }

  /// The TCP ports the plugin connects to.
  public var connect: [Target]
  /// The paths the plugin reads.
  public var read: [Target]
  /// The paths the plugin writes (and reads).
  public var write: [Target]

  public init(connect: [Target] = [], read: [Target] = [], write: [Target] = []) {
    self.connect = connect
    self.read = read
    self.write = write
  }

  /// Nothing beyond computing.
  public static let none = Needs()

  /// Whether it declares nothing.
  public var isEmpty: Bool { connect.isEmpty && read.isEmpty && write.isEmpty }

  /// The kinds of need with their targets, in the manifest's order: connect, read, write.
  var kinds: [(kind: Kind, targets: [Target])] { [(.connect, connect), (.read, read), (.write, write)] }

  /// A kind of need, named as in the manifest.
  enum Kind: String, CaseIterable {
    case connect, read, write
  }
}
