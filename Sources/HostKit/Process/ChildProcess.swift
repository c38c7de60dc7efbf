#if canImport(Glibc)
  import Glibc
#endif

/// How to start one child process: the program, its arguments, environment, folder and
/// descriptors.
///
/// `run(timeout:)` runs it to the end and returns its `ChildResult`; `start()` returns a
/// `RunningChild` to talk to while it runs. The child is started with posix_spawn in a process
/// group of its own, with no signal blocked and every signal at its default disposition, so a
/// timeout kills whatever it started too. Output pipes are read with poll(2), so a child that fills
/// one pipe while we wait on another never deadlocks.
public struct ChildProcess: Sendable {
  /// What the child reads on descriptor 0.
  public enum Input: Sendable, Equatable {
    /// /dev/null: the child sees end of file at once.
    case null
    /// This process's own stdin.
    case inherit
    /// These bytes, then end of file.
    case bytes([UInt8])
    /// A pipe the caller writes with `RunningChild.write` and ends with `closeInput`.
    case pipe
  }

  /// Where the child's writes to one descriptor go.
  public enum Output: Sendable, Equatable {
    /// /dev/null.
    case discard
    /// This process's own descriptor of the same number.
    case inherit
    /// A pipe, every byte kept.
    case capture
    /// A pipe, only the last `count` bytes kept: for a child that may print without end.
    case captureLast(Int)
  }

  /// The program: a path, or a name without `/` looked up in this process's PATH.
  public var executable: String
  /// The arguments after the program's own name.
  public var arguments: [String]
  /// The child's whole environment.
  public var environment: [String: String]
  /// The folder the child starts in; nil for this process's own. A relative `executable` is
  /// resolved from it.
  public var workingDirectory: String?
  public var standardInput: Input = .null
  public var standardOutput: Output = .capture
  public var standardError: Output = .capture
  /// Whether descriptor 2 is the same as descriptor 1 (`2>&1`), whatever `standardError` says.
  public var errorIntoOutput = false
  /// Descriptors from 3 to 9 that each get a pipe of their own, captured in full (a verdict pipe).
  public var extraOutputs: [Int32] = []
  /// Descriptors of this process handed to the child, by the number (3 to 9) it sees them as: a
  /// socket end for a worker. This process keeps its own; close it once the child has started.
  public var passedDescriptors: [Int32: Int32] = [:]

  public init(
    _ executable: String, arguments: [String] = [], environment: [String: String] = ChildProcess.currentEnvironment
  ) {
    self.executable = executable
    self.arguments = arguments
    self.environment = environment
  }

  /// This process's environment.
  public static var currentEnvironment: [String: String] { ProcessEnvironment.current }

  /// Runs the child to its end: feeds its input, reads its outputs to end of file and waits for it.
  ///
  /// Past `timeout` the child's process group is killed with SIGKILL and the result says
  /// `.timedOut`. Throws only when the child cannot be started.
  public func run(timeout: Duration? = nil) throws(ChildProcessFailure) -> ChildResult {
    let deadline = timeout.map { ContinuousClock.now + $0 }
    return try start().finish(until: deadline)
  }

  /// `run(timeout:)` for a child a busy machine may slow: time it waits for a CPU does not count
  /// against `budget` (`RunningChild.finish(budget:cap:)`), up to `busyMachineAllowance` times
  /// `budget` in all.
  public func run(budget: Duration) throws(ChildProcessFailure) -> ChildResult {
    try start().finish(budget: budget, cap: budget * Self.busyMachineAllowance)
  }

  /// How many times its budget a child run with `run(budget:)` may take in all.
  public static let busyMachineAllowance = 6

  /// Starts the child and returns it running. The caller ends it with `finish(until:)`; a
  /// `RunningChild` dropped before that kills the child's group and reaps it.
  public func start() throws(ChildProcessFailure) -> RunningChild {
    var seen: Set<Int32> = []
    for descriptor in extraOutputs + passedDescriptors.keys.sorted()
    where !(3...9).contains(descriptor) || !seen.insert(descriptor).inserted {
      throw .descriptorNotAllowed(descriptor)
    }
    var spawn = SpawnPlan(self)
    return try spawn.launch()
  }
}

/// How a child process ended.
public enum ChildTermination: Sendable, Equatable, CustomStringConvertible {
  /// It exited with this status.
  case exited(Int32)
  /// A signal ended it.
  case signalled(Int32)
  /// It was still running at the deadline, and its process group was killed.
  case timedOut

  /// The status a shell shows for it: the exit status, or 128 + the signal (SIGKILL's at a timeout).
  public var shellStatus: Int32 {
    switch self {
    case .exited(let status): status
    case .signalled(let signal): 128 + signal
    case .timedOut: 128 + SIGKILL
    }
  }

  public var description: String {
    switch self {
    case .exited(let status): "exited with status \(status)"
    case .signalled(let signal): "killed by signal \(signal)"
    case .timedOut: "timed out"
    }
  }
}

/// What a child process left: how it ended and what it wrote to the captured descriptors.
public struct ChildResult: Sendable, Equatable {
  public var termination: ChildTermination
  /// Descriptor 1's bytes, when captured (what `RunningChild.take` already took is not here).
  public var standardOutput: [UInt8]
  /// Descriptor 2's bytes, when captured separately.
  public var standardError: [UInt8]
  /// The bytes of each of `ChildProcess.extraOutputs`, by descriptor.
  public var extraOutputs: [Int32: [UInt8]]

  /// `standardOutput` as UTF-8 text.
  public var outputText: String { String(decoding: standardOutput, as: UTF8.self) }
  /// `standardError` as UTF-8 text.
  public var errorText: String { String(decoding: standardError, as: UTF8.self) }
}

/// Why a child process could not be started.
public enum ChildProcessFailure: EngineFailure, Equatable {
  /// posix_spawn failed: the program is missing, not executable, or the folder is wrong.
  case cannotStart(executable: String, reason: String)
  /// The folder to start in is missing or cannot be entered.
  case cannotEnterFolder(String, reason: String)
  /// The system refused a pipe (too many open files).
  case cannotCreatePipe(reason: String)
  /// An extra output or passed descriptor outside 3...9, or given twice.
  case descriptorNotAllowed(Int32)
  /// This C library cannot start a child in another folder.
  case workingDirectoryUnsupported(String)

  public var description: String {
    switch self {
    case .cannotStart(let executable, let reason): "cannot start '\(executable)': \(reason)"
    case .cannotEnterFolder(let folder, let reason): "cannot start a child process in '\(folder)': \(reason)"
    case .cannotCreatePipe(let reason): "cannot create a pipe for a child process: \(reason)"
    case .descriptorNotAllowed(let descriptor):
      "descriptor \(descriptor) cannot be an extra output or passed descriptor of a child process"
    case .workingDirectoryUnsupported(let folder):
      "cannot start a child process in '\(folder)': this C library has no posix_spawn_file_actions_addchdir_np"
    }
  }

  public var advice: String? {
    switch self {
    case .cannotStart(let executable, _): "check that '\(executable)' exists and is executable"
    case .cannotEnterFolder: "give an existing folder this user may enter"
    case .cannotCreatePipe: "close some files, or raise the limit on open files (ulimit -n)"
    case .descriptorNotAllowed: "use each of the descriptors 3 to 9 at most once"
    case .workingDirectoryUnsupported: "use glibc 2.29 or later"
    }
  }
}
