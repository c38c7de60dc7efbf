import CWorkerRing

#if canImport(Glibc)
  import Glibc
#endif

/// How a host starts a worker: `EXECUTABLE __worker PARENT-PID PROTOCOL`, with its socket on
/// descriptor 3 and the channel's memory on `WorkerServer.channelDescriptor`. `host-worker` and
/// `host __worker` read it alike.
package enum WorkerLaunch {
  /// The version of the frames and the rings. A `host-worker` built apart from its host (`swift
  /// build --product host` relinks the host alone) may speak another: it refuses to serve, with
  /// `versionMismatch`, instead of misreading. Bump it with any change to `WorkerFrame`,
  /// `WorkerServer`'s replies or Sources/CWorkerRing (`FH_WORKER_PROTOCOL`, there for the host's
  /// early worker, Sources/CEarlyWorker).
  package static let protocolVersion = Int(FH_WORKER_PROTOCOL)

  /// A worker's exit status when it was run by hand (not by a host).
  package static let usage: Int32 = 64
  /// A worker's exit status when its host speaks another protocol version.
  package static let versionMismatch: Int32 = 65

  /// The arguments the host passes.
  package static func arguments(parent: pid_t) -> [String] {
    ["__worker", "\(parent)", "\(protocolVersion)"]
  }

  /// The host's process id from `arguments` (`PARENT-PID PROTOCOL`, after `__worker`), or why
  /// they cannot be served: a message, its help, and the exit status.
  package static func parent(
    _ arguments: [String], executable: String
  ) -> Result<pid_t, Refusal> {
    guard arguments.count == 2, let parent = pid_t(arguments[0]), parent > 1,
      fcntl(WorkerServer.socketDescriptor, F_GETFD) >= 0,
      fcntl(WorkerServer.channelDescriptor, F_GETFD) >= 0
    else {
      return .failure(
        Refusal(
          message: "'\(executable)' serves a feature for a host process and is not run by hand",
          help: "run a feature with 'host run ID'", status: usage))
    }
    guard arguments[1] == "\(protocolVersion)" else {
      return .failure(
        Refusal(
          message: "'\(executable)' speaks worker protocol \(protocolVersion) and its host \(arguments[1]): "
            + "the two were built apart",
          help: "build them together: 'swift build' (or './host', which builds what running needs)",
          status: versionMismatch))
    }
    return .success(parent)
  }

  /// Why a worker's command line cannot be served.
  package struct Refusal: Error {
    package let message: String
    package let help: String
    package let status: Int32
  }

  /// The plugin's environment as `create`'s fields after its config: a count, then `NAME=VALUE`s.
  package static func write(environment: [String: String], to writer: inout FrameWriter) {
    writer.uint64(UInt64(environment.count), width: 4)
    for (name, value) in environment.sorted(by: { $0.key < $1.key }) { writer.string("\(name)=\(value)") }
  }

  /// Reads what `write(environment:to:)` wrote (the count capped: a frame that claims more than
  /// it holds reads as empty strings, not endless ones).
  package static func readEnvironment(_ fields: inout FrameFields) -> [String] {
    (0..<min(Int(fields.uint64(width: 4)), 65_536)).map { _ in fields.string() }
  }

  /// Makes `entries` (`NAME=VALUE`) the worker's whole environment, before the plugin loads: a
  /// worker started before its host read its settings (Sources/CEarlyWorker) started with only
  /// what its own start-up reads.
  package static func adopt(environment entries: [String]) {
    clearenv()
    for entry in entries {
      guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else { continue }
      setenv(String(entry[..<equals]), String(entry[entry.index(after: equals)...]), 1)
    }
  }
}
