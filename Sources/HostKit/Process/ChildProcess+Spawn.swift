#if canImport(Glibc)
  import Glibc
#endif

/// The pipes and posix_spawn settings for one `ChildProcess`, made before the spawn and owned
/// by the `RunningChild` after it.
struct SpawnPlan {
  private let process: ChildProcess
  /// Our end of each pipe; closed here if the spawn fails.
  private var parentEnds: [Int32] = []
  /// The child's end of each pipe; always closed here after the spawn.
  private var childEnds: [Int32] = []
  private var input: Int32 = -1
  private var outputs: [CapturedOutput] = []

  init(_ process: ChildProcess) {
    self.process = process
  }

  /// Spawns the child; on failure every descriptor made for it is closed again.
  mutating func launch() throws(ChildProcessFailure) -> RunningChild {
    defer { for end in childEnds { close(end) } }
    do {
      return try spawn()
    } catch {
      for end in parentEnds { close(end) }
      throw error
    }
  }

  private mutating func spawn() throws(ChildProcessFailure) -> RunningChild {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }

    switch process.standardInput {
    case .null: posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    case .inherit: break
    case .bytes, .pipe:
      let ends = try makePipe()
      parentEnds.append(ends.write)
      childEnds.append(ends.read)
      input = ends.write
      // Written with poll: a child that does not read must not block us.
      _ = fcntl(ends.write, F_SETFL, fcntl(ends.write, F_GETFL) | O_NONBLOCK)
      posix_spawn_file_actions_adddup2(&actions, ends.read, STDIN_FILENO)
    }
    try direct(process.standardOutput, to: STDOUT_FILENO, actions: &actions)
    if process.errorIntoOutput {
      posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO)
    } else {
      try direct(process.standardError, to: STDERR_FILENO, actions: &actions)
    }
    for descriptor in process.extraOutputs {
      try direct(.capture, to: descriptor, actions: &actions)
    }
    for (descriptor, given) in process.passedDescriptors.sorted(by: { $0.key < $1.key }) {
      // A copy numbered 10 or above, so no other dup2 onto 3...9 meets it; closed after the spawn.
      let copy = fcntl(given, F_DUPFD_CLOEXEC, 10)
      guard copy >= 0 else { throw .cannotCreatePipe(reason: String(cString: strerror(errno))) }
      childEnds.append(copy)
      posix_spawn_file_actions_adddup2(&actions, copy, descriptor)
    }
    // The child gets the descriptors named here and no other: a socket or file another thread
    // opened without close-on-exec (a library's, a test server's) must not outlive its owner's
    // close in a child that runs on.
    let kept = Set(
      [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] + process.extraOutputs + Array(process.passedDescriptors.keys))
    let highest = kept.max() ?? STDERR_FILENO
    for descriptor in stride(from: STDERR_FILENO + 1, to: highest, by: 1) where !kept.contains(descriptor) {
      posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    if let addCloseFrom = GNUExtensions.addCloseFrom { _ = addCloseFrom(&actions, highest + 1) }
    if let folder = process.workingDirectory {
      guard let addChdir = GNUExtensions.addChdir else { throw .workingDirectoryUnsupported(folder) }
      _ = addChdir(&actions, folder)
    }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Its own process group, so a timeout kills whatever it started too; and signals as a shell
    // would leave them, whatever this process ignores (SIGPIPE) or blocks.
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    posix_spawnattr_setpgroup(&attributes, 0)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigdefault(&attributes, &all)

    let argv = ([process.executable] + process.arguments).map { strdup($0) } + [nil]
    let environment = process.environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + environment { free(pointer) } }
    var pid = pid_t()
    let status =
      process.executable.contains("/")
      ? posix_spawn(&pid, process.executable, &actions, &attributes, argv, environment)
      : posix_spawnp(&pid, process.executable, &actions, &attributes, argv, environment)
    guard status == 0 else {
      if let folder = process.workingDirectory {
        var info = stat()
        if stat(folder, &info) != 0 {
          throw .cannotEnterFolder(folder, reason: String(cString: strerror(errno)))
        }
        if (info.st_mode & S_IFMT) != S_IFDIR || access(folder, X_OK) != 0 {
          throw .cannotEnterFolder(folder, reason: "not a folder this user may enter")
        }
      }
      throw .cannotStart(executable: process.executable, reason: String(cString: strerror(status)))
    }
    guard let exitNotice = RunningChild.watchExit(of: pid) else {
      let reason = String(cString: strerror(errno))
      kill(-pid, SIGKILL)
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      throw .cannotCreatePipe(reason: reason)
    }
    return RunningChild(
      pid: pid, exitNotice: exitNotice, input: input, pendingInput: pendingInput, outputs: outputs)
  }

  private var pendingInput: [UInt8]? {
    if case .bytes(let bytes) = process.standardInput { bytes } else { nil }
  }

  private mutating func direct(
    _ output: ChildProcess.Output, to descriptor: Int32, actions: inout posix_spawn_file_actions_t
  ) throws(ChildProcessFailure) {
    switch output {
    case .discard: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
    case .inherit: break
    case .capture, .captureLast:
      let ends = try makePipe()
      parentEnds.append(ends.read)
      childEnds.append(ends.write)
      var limit: Int?
      if case .captureLast(let count) = output { limit = max(0, count) }
      outputs.append(CapturedOutput(descriptor: descriptor, fd: ends.read, limit: limit))
      posix_spawn_file_actions_adddup2(&actions, ends.write, descriptor)
    }
  }

  /// A pipe whose ends are close-on-exec from the start (another thread may be spawning too)
  /// and numbered 10 or above, so the child's dup2 onto 0...9 never meets one of them.
  private func makePipe() throws(ChildProcessFailure) -> (read: Int32, write: Int32) {
    let pipe = try GNUExtensions.closeOnExecPipe()
      .mapError { ChildProcessFailure.cannotCreatePipe(reason: $0.reason) }.get()
    let ends = [pipe.read, pipe.write]
    let moved = ends.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
    let reason = String(cString: strerror(errno))
    for end in ends { close(end) }
    guard moved.allSatisfy({ $0 >= 0 }) else {
      for end in moved where end >= 0 { close(end) }
      throw .cannotCreatePipe(reason: reason)
    }
    return (moved[0], moved[1])
  }
}
