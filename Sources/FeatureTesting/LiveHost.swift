import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// A running `host` process that a test feeds and reads while it runs: what a person at the
/// other end of a pipe does, with a deadline on every wait.
///
/// One owner: a test drives it from one thread.
public final class LiveHost {
  public let child: RunningChild
  private var buffer: [UInt8] = []
  /// All of stderr read so far.
  private var errorBytes: [UInt8] = []
  private let deadline: Duration

  /// Starts `host arguments...` in `HostProcess.environment(adding: environment)`, stdin a pipe;
  /// stderr is kept (the last 64 KiB) for messages. Every wait gives up after `deadline`.
  public init(_ arguments: [String], environment: [String: String] = [:], deadline: Duration = .seconds(120)) throws {
    var process = ChildProcess(
      HostProcess.executable, arguments: arguments, environment: HostProcess.environment(adding: environment))
    process.standardInput = .pipe
    process.standardError = .captureLast(1 << 16)
    child = try process.start()
    self.deadline = deadline
  }

  /// Writes `text` to the host's stdin.
  public func send(_ text: String) { child.write(text.utf8) }

  /// Reads stdout until it holds `marker`; returns what came before it and forgets both.
  @discardableResult
  public func read(through marker: String) throws -> String {
    let until = ContinuousClock.now + deadline
    let wanted = Array(marker.utf8)
    while true {
      // First what earlier waits pumped (waitForErrors reads stdout too, up to its end): only
      // then does an ended stdout mean the marker never came.
      buffer += child.take(STDOUT_FILENO)
      if let end = Self.end(of: wanted, in: buffer) {
        let before = String(decoding: buffer[..<(end - wanted.count)], as: UTF8.self)
        buffer.removeSubrange(..<end)
        return before
      }
      guard !child.outputEnded(STDOUT_FILENO) else {
        throw FixtureError("the host closed stdout before printing '\(marker)'; stderr: \(errors)")
      }
      guard child.pump(until: until) else {
        throw FixtureError("the host printed no '\(marker)' within \(deadline); stderr: \(errors)")
      }
    }
  }

  /// Reads stdout up to the next line that starts with `prefix`, and returns that line.
  public func line(startingWith prefix: String) throws -> String {
    while true {
      let line = try read(through: "\n")
      if line.hasPrefix(prefix) { return line }
    }
  }

  /// What the host wrote on stderr so far.
  public var errors: String {
    child.pumpAvailable()
    errorBytes += child.take(STDERR_FILENO)
    return String(decoding: errorBytes, as: UTF8.self)
  }

  /// Waits until stderr holds `marker`; returns all of stderr so far.
  @discardableResult
  public func waitForErrors(containing marker: String) throws -> String {
    let until = ContinuousClock.now + deadline
    while true {
      let text = errors
      if text.contains(marker) { return text }
      guard !child.outputEnded(STDERR_FILENO) else {
        throw FixtureError("the host closed stderr before printing '\(marker)'; stderr: \(text)")
      }
      guard child.pump(until: until) else {
        throw FixtureError("the host printed no '\(marker)' on stderr within \(deadline); stderr: \(text)")
      }
    }
  }

  /// Whether the host is still running.
  public var isRunning: Bool {
    child.pumpAvailable()
    return !child.hasExited
  }

  /// The host's resident memory in bytes (Linux: /proc/PID/statm).
  public func residentBytes() throws -> Int {
    let statm = try readText("/proc/\(child.pid)/statm")
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { throw FixtureError("cannot read statm: '\(statm)'") }
    return pages * sysconf(Int32(_SC_PAGESIZE))
  }

  /// Sends `:quit`, ends stdin and returns the exit status (128 + signal for a killed host).
  public func quit() -> Int32 {
    send(":quit\n")
    return child.finish(until: ContinuousClock.now + deadline).termination.shellStatus
  }

  /// Waits, stdin left open, until the host exits by itself, and returns its exit status; nil
  /// (the host still running) after the deadline.
  public func waitForExit() -> Int32? {
    let until = ContinuousClock.now + deadline
    while !child.hasExited {
      buffer += child.take(STDOUT_FILENO)
      guard child.pump(until: until) else { return nil }
    }
    return child.finish(until: ContinuousClock.now + deadline).termination.shellStatus
  }

  /// Kills the host's process group with SIGKILL and reaps it.
  public func kill() {
    child.signalGroup(SIGKILL)
    _ = child.finish(until: nil)
  }

  private static func end(of wanted: [UInt8], in bytes: [UInt8]) -> Int? {
    guard !wanted.isEmpty, bytes.count >= wanted.count else { return nil }
    for start in 0...(bytes.count - wanted.count) where bytes[start] == wanted[0] {
      if bytes[start..<(start + wanted.count)].elementsEqual(wanted) { return start + wanted.count }
    }
    return nil
  }

  private func readText(_ path: String) throws -> String {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw FixtureError("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let count = Glibc.read(descriptor, &bytes, bytes.count)
    guard count > 0 else { throw FixtureError("cannot read \(path)") }
    return String(decoding: bytes[..<count], as: UTF8.self)
  }
}
