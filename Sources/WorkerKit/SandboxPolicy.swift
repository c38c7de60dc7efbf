/// What a plugin's worker is given once the sandbox is applied: everything else is refused.
///
/// Paths are granted with what lies beneath them; a path that does not exist is skipped. Nothing
/// is ever executable, and no TCP port may ever be bound.
public struct SandboxPolicy: Sendable, Equatable {
  /// Files and folders the plugin may read.
  public var readPaths: [String]
  /// Files and folders the plugin may read, write, create in, rename in and remove from.
  public var writePaths: [String]
  /// The TCP ports the plugin may connect to (on any address).
  public var connectPorts: [UInt16]
  /// The most memory, in bytes, the process may hold (RLIMIT_DATA); nil for no limit.
  public var maxMemory: UInt64?
  /// The most descriptors the process may have open (RLIMIT_NOFILE, soft and hard).
  public var maxOpenFiles: UInt64
  /// A descriptor the worker's fatal-signal handlers write one line to when it dies (`stopped
  /// execve`, `memory 1073741824`), or -1 for none. The sandbox keeps it open.
  public var noteDescriptor: Int32

  /// A few thousand descriptors: more than a feature needs, few enough that a leak ends in
  /// EMFILE in its worker, not in the machine's table.
  public static let defaultMaxOpenFiles: UInt64 = 4096

  public init(
    readPaths: [String] = [], writePaths: [String] = [], connectPorts: [UInt16] = [], maxMemory: UInt64? = nil,
    maxOpenFiles: UInt64 = SandboxPolicy.defaultMaxOpenFiles, noteDescriptor: Int32 = -1
  ) {
    self.readPaths = readPaths
    self.writePaths = writePaths
    self.connectPorts = connectPorts
    self.maxMemory = maxMemory
    self.maxOpenFiles = maxOpenFiles
    self.noteDescriptor = noteDescriptor
  }
}
