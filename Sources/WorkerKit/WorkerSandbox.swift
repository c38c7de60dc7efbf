import CWorkerRing
import FeatureJSON
import FeatureManifest

#if canImport(Glibc)
  import Glibc
#endif

/// Whether workers (and the scanner and image children) run sandboxed, and their limits.
public struct SandboxSettings: Sendable, Equatable {
  /// False only for measuring what the sandbox costs; `--isolation none` is how a person runs
  /// without one.
  public var enabled: Bool
  /// The most memory (bytes) a worker may hold; nil: no limit.
  public var maxMemory: UInt64?
  /// The most descriptors a worker may have open.
  public var maxOpenFiles: UInt64

  public init(
    enabled: Bool = true, maxMemory: UInt64? = SandboxSettings.defaultMaxMemory,
    maxOpenFiles: UInt64 = SandboxPolicy.defaultMaxOpenFiles
  ) {
    self.enabled = enabled
    self.maxMemory = maxMemory
    self.maxOpenFiles = maxOpenFiles
  }

  /// 2 GiB, or half the machine's memory where that is less: a runaway allocation ends its
  /// worker, not the machine.
  public static let defaultMaxMemory: UInt64 = {
    let pages = sysconf(Int32(_SC_PHYS_PAGES))
    let size = sysconf(Int32(_SC_PAGESIZE))
    let twoGiB: UInt64 = 2 << 30
    guard pages > 0, size > 0 else { return twoGiB }
    return min(twoGiB, UInt64(pages) * UInt64(size) / 2)
  }()

  /// No sandbox at all (benchmarks measure its cost against this).
  public static let off = SandboxSettings(enabled: false, maxMemory: nil)
}

/// What one worker's plugin is given, worked out by the host from the manifest's needs and the
/// config, sent with `create`; the worker adds what loading and running any plugin needs.
package struct WorkerGrant: Sendable, Equatable {
  package var readPaths: [String] = []
  package var writePaths: [String] = []
  package var connectPorts: [UInt16] = []
  package var maxMemory: UInt64?
  package var maxOpenFiles = SandboxPolicy.defaultMaxOpenFiles

  /// The grant for the plugin at `plugin` (what loading it reads) and `manifest`'s needs under
  /// `config` (a JSON object's text) and `environment` (what the worker will see); nil when
  /// `settings` turn the sandbox off.
  package static func grant(
    for manifest: Manifest, plugin: String, config: String, environment: [String: String], settings: SandboxSettings
  ) -> WorkerGrant? {
    guard settings.enabled else { return nil }
    let object = (try? JSONValue.parse(config))?.objectValue ?? [:]
    let grants = manifest.needs.grants(config: object, environment: environment)
    SandboxWarnings.missingWrites(grants.writePaths, feature: manifest.id)
    // What every plugin reads is worked out here, once per host, not in each worker.
    let system = Sandbox.pluginReadPaths(plugin) + Sandbox.sharedReadPaths(network: !grants.connectPorts.isEmpty)
    return WorkerGrant(
      readPaths: system + grants.readPaths, writePaths: grants.writePaths, connectPorts: grants.connectPorts,
      maxMemory: settings.maxMemory, maxOpenFiles: settings.maxOpenFiles)
  }

  /// The grant as `create`'s last fields: a byte (0: no sandbox), then the limits and lists.
  package static func write(_ grant: WorkerGrant?, to writer: inout FrameWriter) {
    guard let grant else { return writer.byte(0) }
    writer.byte(1)
    writer.uint64(grant.maxMemory ?? 0)
    writer.uint64(grant.maxOpenFiles)
    for list in [grant.readPaths, grant.writePaths] {
      writer.uint64(UInt64(list.count), width: 4)
      for path in list { writer.string(path) }
    }
    writer.uint64(UInt64(grant.connectPorts.count), width: 4)
    for port in grant.connectPorts { writer.uint64(UInt64(port), width: 2) }
  }

  /// Reads what `write` wrote; nil for no sandbox.
  package static func read(_ fields: inout FrameFields) -> WorkerGrant? {
    guard fields.byte() == 1 else { return nil }
    var grant = WorkerGrant()
    let memory = fields.uint64()
    grant.maxMemory = memory == 0 ? nil : memory
    grant.maxOpenFiles = fields.uint64()
    // Counts are capped: a frame that claims more than it holds reads as empty strings, not endless ones.
    grant.readPaths = (0..<min(Int(fields.uint64(width: 4)), 4096)).map { _ in fields.string() }
    grant.writePaths = (0..<min(Int(fields.uint64(width: 4)), 4096)).map { _ in fields.string() }
    grant.connectPorts = (0..<min(Int(fields.uint64(width: 4)), 65_536)).map { _ in UInt16(fields.uint64(width: 2)) }
    return grant
  }

  /// The policy the worker applies before loading the plugin, its death notes going to
  /// `noteDescriptor`.
  package func policy(noteDescriptor: Int32) -> SandboxPolicy {
    SandboxPolicy(
      readPaths: Sandbox.withOwnProcFolder(readPaths),
      writePaths: writePaths, connectPorts: connectPorts, maxMemory: maxMemory, maxOpenFiles: maxOpenFiles,
      noteDescriptor: noteDescriptor)
  }
}

/// The descriptor a sandboxed child writes its death note on, and what the host reads there.
public enum SandboxNotes {
  /// The number the child sees the note pipe's write end as.
  public static let descriptor = Int32(FH_WORKER_NOTES_FD)

  /// A pipe for a child's death note: the read end (non-blocking, this process keeps it) and the
  /// write end (handed to the child as `descriptor`, closed here once it started).
  package static func pipe() -> (read: Int32, write: Int32)? {
    guard case .success(let ends) = GNUExtensions.closeOnExecPipe() else { return nil }
    _ = fcntl(ends.read, F_SETFL, fcntl(ends.read, F_GETFL) | O_NONBLOCK)
    return ends
  }

  /// What a child that died wrote on its note pipe (`read`), as the loss it tells of; nil when it
  /// wrote nothing the host knows.
  package static func loss(readingFrom read: Int32) -> InstanceLoss? {
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    return loss(note: String(decoding: buffer[0..<count], as: UTF8.self))
  }

  /// `stopped execve` -> stopped by the sandbox; `memory 1073741824` -> out of memory.
  package static func loss(note: String) -> InstanceLoss? {
    guard let line = note.split(separator: "\n").first else { return nil }
    let words = line.split(separator: " ", maxSplits: 1).map(String.init)
    guard words.count == 2 else { return nil }
    switch words[0] {
    case "stopped": return .stoppedBySandbox(syscall: words[1])
    case "memory": return UInt64(words[1]).map { .outOfMemory(limit: $0) }
    default: return nil
    }
  }
}

extension SandboxRefusal.Kind {
  /// The kind's byte in a `refused` frame.
  package var frameByte: UInt8 {
    switch self {
    case .read: 1
    case .write: 2
    case .connect: 3
    case .bind: 4
    case .socket: 5
    }
  }

  package init?(frameByte: UInt8) {
    switch frameByte {
    case 1: self = .read
    case 2: self = .write
    case 3: self = .connect
    case 4: self = .bind
    case 5: self = .socket
    default: return nil
    }
  }
}

/// What the host says once per process about its sandboxes.
public enum SandboxWarnings {
  /// The line a worker reported on the protections it could not apply, said once.
  private static let said = Locked(false)
  /// Where the line goes; the CLI sets it (a library says nothing on its own).
  public static let sink = Locked<(@Sendable (String) -> Void)?>(nil)

  /// Each declared write path of `paths` that does not exist, said once a run: Landlock grants
  /// only what exists, and granting its folder instead would grant every file in it.
  package static func missingWrites(_ paths: [String], feature: String) {
    for path in paths where access(path, F_OK) != 0 {
      let first = missingSaid.withLock { $0.insert(path).inserted }
      guard first, let sink = sink.withLock({ $0 }) else { continue }
      sink(
        "\(feature) declares that it writes \(path), which does not exist, so it is not granted; "
          + "create it (a file or a folder) first")
    }
  }

  private static let missingSaid = Locked<Set<String>>([])

  package static func protectionsOff(_ line: String) {
    let first = said.withLock { said in
      defer { said = true }
      return !said
    }
    guard first, let sink = sink.withLock({ $0 }) else { return }
    sink("the sandbox runs without some protections (\(line)); workers run with the rest ('host list --verbose')")
  }
}

extension SandboxRefusal {
  /// `kittens tried to connect to port 8080, which it did not declare (sandbox refused)`.
  public func sentence(feature: String) -> String {
    switch kind {
    case .connect: "\(feature) tried to connect to port \(subject), which it did not declare (sandbox refused)"
    case .bind: "\(feature) tried to listen on port \(subject), which no plugin may (sandbox refused)"
    case .read: "\(feature) tried to read \(subject), which it did not declare (sandbox refused)"
    case .write: "\(feature) tried to write \(subject), which it did not declare (sandbox refused)"
    case .socket where subject == "local":
      "\(feature) tried to open a local (unix) socket, which no plugin may (sandbox refused)"
    case .socket: "\(feature) tried to use the network, which it did not declare (sandbox refused)"
    }
  }

  /// The manifest field that would allow it: `needs.connect`; nil for what no need allows.
  public var needField: String? {
    switch kind {
    case .connect: "needs.connect"
    case .bind: nil
    case .socket: subject == "local" ? nil : "needs.connect"
    case .read: "needs.read"
    case .write: "needs.write"
    }
  }
}
