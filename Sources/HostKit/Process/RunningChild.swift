#if canImport(Glibc)
  import Glibc
#endif

/// One captured descriptor of a child: our end of its pipe and what came through it.
struct CapturedOutput {
  /// The descriptor number in the child (1, 2, 3...).
  var descriptor: Int32
  /// Our read end; -1 once it reached end of file.
  var fd: Int32
  /// Keep only this many of the last bytes; nil keeps all.
  var limit: Int?
  var bytes: [UInt8] = []

  var ended: Bool { fd < 0 }
}

/// A child process started by `ChildProcess.start()`: its input, its captured outputs, its end.
///
/// One thread drives it: `pump(until:)` waits with poll(2) for whatever comes first (output,
/// the end of a stream, room in the input pipe, the child's exit) and handles it, so no stream
/// blocks another. Its exit is noticed through a pipe that a small waiter thread closes once
/// `waitid(WNOWAIT)` returns; the child stays a zombie (its pid and group stay ours) until
/// `finish` reaps it. Dropping it unfinished kills the child's group and reaps it.
public final class RunningChild {
  /// The child's process id, which is also its process group id.
  public let pid: pid_t
  private var input: Int32
  private var pendingInput: [UInt8] = []
  private var inputOffset = 0
  private var closeInputWhenWritten = false
  private var outputs: [CapturedOutput]
  /// Reaches end of file when the child has exited; -1 once that was seen.
  private var exitNotice: Int32
  private var termination: ChildTermination?
  /// Set by `leaveToExit`: nothing waits for it here.
  private var leftToExit = false
  private let started = ContinuousClock.now

  init(pid: pid_t, exitNotice: Int32, input: Int32, pendingInput: [UInt8]?, outputs: [CapturedOutput]) {
    self.pid = pid
    self.exitNotice = exitNotice
    self.input = input
    self.outputs = outputs
    if let pendingInput {
      self.pendingInput = pendingInput
      closeInputWhenWritten = true
      flushInput()
    }
  }

  deinit {
    if termination == nil && !leftToExit {
      signalGroup(SIGKILL)
      _ = reap()
    }
    closeAll()
  }

  /// Whether the child has exited (it may not be reaped yet).
  public var hasExited: Bool { exitNotice < 0 }

  /// Whether every captured descriptor reached end of file.
  public var allOutputEnded: Bool { outputs.allSatisfy(\.ended) }

  /// Whether the captured `descriptor` reached end of file (true for one that is not captured).
  public func outputEnded(_ descriptor: Int32) -> Bool {
    outputs.first { $0.descriptor == descriptor }?.ended ?? true
  }

  /// Queues `bytes` for the child's stdin (an `Input.pipe`) and writes what the pipe takes now;
  /// `pump` writes the rest. Bytes for a child that stopped reading are dropped.
  public func write(_ bytes: some Sequence<UInt8>) {
    guard input >= 0, !closeInputWhenWritten else { return }
    pendingInput.append(contentsOf: bytes)
    flushInput()
  }

  /// Ends the child's stdin once the queued bytes are written.
  public func closeInput() {
    closeInputWhenWritten = true
    flushInput()
  }

  /// Removes and returns what came from the captured `descriptor` so far.
  public func take(_ descriptor: Int32) -> [UInt8] {
    guard let index = outputs.firstIndex(where: { $0.descriptor == descriptor }) else { return [] }
    defer { outputs[index].bytes.removeAll() }
    return outputs[index].bytes
  }

  /// Sends `signal` to the child's process group.
  public func signalGroup(_ signal: Int32) {
    guard termination == nil else { return }
    kill(-pid, signal)
    // In case it left its group: it is still ours to end.
    kill(pid, signal)
  }

  /// Waits until something happens (output, end of a stream, input written, the exit) or the
  /// deadline (nil: no deadline), and handles it. False once the deadline has passed; true when
  /// there is nothing left to wait for.
  @discardableResult
  public func pump(until deadline: ContinuousClock.Instant?) -> Bool {
    var milliseconds: Int32 = -1
    if let deadline {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { return false }
      milliseconds = Int32(
        clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
    }
    if poll(waitingAtMost: milliseconds) == 0, let deadline { return ContinuousClock.now < deadline }
    return true
  }

  /// Handles whatever is ready now (output, room for input, the exit) without waiting.
  public func pumpAvailable() {
    while poll(waitingAtMost: 0) > 0 {}
  }

  /// One poll(2) over everything still open, and the handling of what it found; how many were ready.
  private func poll(waitingAtMost milliseconds: Int32) -> Int32 {
    var fds: [pollfd] = []
    if input >= 0 && inputOffset < pendingInput.count {
      fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0))
    }
    for output in outputs where !output.ended { fds.append(pollfd(fd: output.fd, events: Int16(POLLIN), revents: 0)) }
    if exitNotice >= 0 { fds.append(pollfd(fd: exitNotice, events: Int16(POLLIN), revents: 0)) }
    guard !fds.isEmpty else { return 0 }
    let ready = Glibc.poll(&fds, nfds_t(fds.count), milliseconds)
    // EINTR counts as something happened: the caller's loop asks again.
    guard ready > 0 else { return ready < 0 ? 1 : 0 }
    for fd in fds where fd.revents != 0 {
      if fd.fd == input {
        flushInput()
      } else if fd.fd == exitNotice {
        close(exitNotice)
        exitNotice = -1
      } else if let index = outputs.firstIndex(where: { $0.fd == fd.fd }) {
        read(into: index)
      }
    }
    return ready
  }

  /// Ends the child's input, reads its outputs to end of file and reaps it.
  ///
  /// At the deadline a child still running has its process group killed (`.timedOut`); one
  /// that has exited but left something holding its pipes has that group killed, and its own
  /// exit is reported.
  public func finish(until deadline: ContinuousClock.Instant?) -> ChildResult {
    closeInput()
    while termination == nil && !(hasExited && allOutputEnded) {
      guard pump(until: deadline) else { break }
    }
    if termination == nil {
      if hasExited {
        if !allOutputEnded { signalGroup(SIGKILL) }
        termination = reap()
      } else {
        signalGroup(SIGKILL)
        _ = reap()
        termination = .timedOut
      }
    }
    closeAll()
    var extra: [Int32: [UInt8]] = [:]
    for output in outputs where output.descriptor > 2 { extra[output.descriptor] = kept(output) }
    return ChildResult(
      termination: termination ?? .timedOut,
      standardOutput: outputs.first { $0.descriptor == 1 }.map(kept) ?? [],
      standardError: outputs.first { $0.descriptor == 2 }.map(kept) ?? [],
      extraOutputs: extra)
  }

  /// Lets the child end by itself, unreaped: for a child that is leaving and ends with this
  /// process anyway (a worker answered its destroy; the kernel kills it when the host goes), at
  /// the host's exit, where waiting for it would only delay the exit. Its descriptors are closed.
  public func leaveToExit() {
    leftToExit = true
    closeAll()
  }

  /// `finish(until:)` with a deadline that does not count the time the child waited for a CPU:
  /// it gets `budget` of running or waiting for something else, so a busy machine slows it
  /// without failing it, while one stuck in a loop or a wait still ends after `budget` of that.
  /// `cap` bounds the whole wait. Where the kernel keeps no scheduler statistics, `budget` is
  /// plain elapsed time.
  public func finish(budget: Duration, cap: Duration) -> ChildResult {
    let hardStop = started + cap
    var deadline = min(started + budget, hardStop)
    closeInput()
    while termination == nil {
      while !(hasExited && allOutputEnded) {
        guard pump(until: deadline) else { break }
      }
      guard !hasExited else { break }
      let next = min(started + budget + (runQueueWait ?? .zero), hardStop)
      guard next > ContinuousClock.now else { break }
      deadline = next
    }
    return finish(until: ContinuousClock.now)
  }

  /// How long the child's main thread has been runnable without a CPU (the second field of
  /// /proc/PID/schedstat, in nanoseconds), or nil where the kernel does not say.
  var runQueueWait: Duration? {
    guard let file = fopen("/proc/\(pid)/schedstat", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return nil }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let fields = text.split(separator: " ")
    guard fields.count >= 2, let waited = Int64(fields[1]) else { return nil }
    return .nanoseconds(waited)
  }

  private func kept(_ output: CapturedOutput) -> [UInt8] {
    guard let limit = output.limit else { return output.bytes }
    return Array(output.bytes.suffix(limit))
  }

  private func read(into index: Int) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let count = buffer.withUnsafeMutableBytes { Glibc.read(outputs[index].fd, $0.baseAddress, $0.count) }
    if count < 0 && (errno == EINTR || errno == EAGAIN) { return }
    guard count > 0 else {
      close(outputs[index].fd)
      outputs[index].fd = -1
      return
    }
    outputs[index].bytes += buffer[..<count]
    if let limit = outputs[index].limit, outputs[index].bytes.count > 2 * limit + 65_536 {
      outputs[index].bytes.removeFirst(outputs[index].bytes.count - limit)
    }
  }

  /// Writes as much queued input as the pipe takes without blocking; closes it when asked and done.
  private func flushInput() {
    guard input >= 0 else { return }
    while inputOffset < pendingInput.count {
      let written = pendingInput.withUnsafeBytes { buffer in
        Self.writeWithoutSIGPIPE(input, buffer.baseAddress.map { $0 + inputOffset }, buffer.count - inputOffset)
      }
      if written > 0 {
        inputOffset += written
        continue
      }
      if written < 0 && errno == EINTR { continue }
      if written < 0 && errno == EAGAIN { return }
      // EPIPE: the child closed its stdin; what it did not read is dropped.
      pendingInput.removeAll()
      inputOffset = 0
      closeInputWhenWritten = true
      break
    }
    pendingInput.removeAll(keepingCapacity: true)
    inputOffset = 0
    if closeInputWhenWritten {
      close(input)
      input = -1
    }
  }

  /// write(2) with SIGPIPE blocked on this thread, and a SIGPIPE it raised taken back, so a
  /// child that closed its stdin gives EPIPE here instead of killing this process.
  private static func writeWithoutSIGPIPE(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    var pipeSignal = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    let written = Glibc.write(fd, bytes, count)
    if written < 0 && errno == EPIPE {
      let error = errno
      var pending = sigset_t()
      sigpending(&pending)
      if sigismember(&pending, SIGPIPE) == 1 {
        var now = timespec()
        _ = sigtimedwait(&pipeSignal, nil, &now)
      }
      errno = error
    }
    return written
  }

  /// Reaps the child, waiting for it; how it ended.
  private func reap() -> ChildTermination {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return .exited(-1) }
    }
    return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
  }

  private func closeAll() {
    if input >= 0 { close(input) }
    input = -1
    if exitNotice >= 0 { close(exitNotice) }
    exitNotice = -1
    for index in outputs.indices where outputs[index].fd >= 0 {
      close(outputs[index].fd)
      outputs[index].fd = -1
    }
  }

  /// A pipe whose read end reaches end of file once `pid` has exited: a detached thread waits
  /// with `waitid(WNOWAIT)`, which leaves the child to be reaped, then closes the write end.
  /// Closing (not writing) means the thread never meets a closed reader or a reused descriptor.
  static func watchExit(of pid: pid_t) -> Int32? {
    guard case .success(let pipe) = GNUExtensions.closeOnExecPipe() else { return nil }
    let ends = [pipe.read, pipe.write]
    let context = UnsafeMutablePointer<(pid_t, Int32)>.allocate(capacity: 1)
    context.initialize(to: (pid, ends[1]))
    var thread = pthread_t()
    let started = pthread_create(
      &thread, nil,
      { raw in
        guard let context = raw?.assumingMemoryBound(to: (pid_t, Int32).self) else { return nil }
        let (pid, notice) = context.pointee
        context.deallocate()
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        close(notice)
        return nil
      }, context)
    guard started == 0 else {
      context.deallocate()
      close(ends[0])
      close(ends[1])
      return nil
    }
    pthread_detach(thread)
    return ends[0]
  }
}
