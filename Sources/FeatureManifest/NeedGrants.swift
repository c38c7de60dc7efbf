/// What a manifest's needs come to for one instance, its config and environment known: the
/// concrete ports and paths a sandbox grants (`Needs.grants(config:environment:)`).
public struct NeedGrants: Sendable, Equatable {
  /// Absolute paths the worker may read (a folder with everything beneath it), sorted, unique.
  /// A path in `writePaths` is readable too and is not repeated here.
  public var readPaths: [String]
  /// Absolute paths the worker may write and read, sorted, unique.
  public var writePaths: [String]
  /// TCP ports the worker may connect to, sorted, unique.
  public var connectPorts: [UInt16]
  /// One line per need that came to nothing, in the manifest's order, e.g.
  /// `connect endpoint: 'ftp://x' is not an http or https URL`.
  public var unresolved: [String]

  public init(
    readPaths: [String] = [], writePaths: [String] = [], connectPorts: [UInt16] = [], unresolved: [String] = []
  ) {
    self.readPaths = readPaths
    self.writePaths = writePaths
    self.connectPorts = connectPorts
    self.unresolved = unresolved
  }

  /// Only computing: no port, no path.
  public var isEmpty: Bool { readPaths.isEmpty && writePaths.isEmpty && connectPorts.isEmpty }
}
