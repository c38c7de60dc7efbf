import FeatureTesting
import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// The built `host` in a real pseudo-terminal: its stdin, stdout and stderr are the terminal,
/// which is its controlling terminal, so keys typed here reach it as they would from a person
/// (Ctrl-C as SIGINT included). Output is read as it comes; `waitFor` blocks on the terminal's
/// descriptor until a text appears, never on a timer.
final class PseudoTerminal {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let master: Int32
  let pid: pid_t
  /// Everything the host wrote so far.
  private(set) var output: [UInt8] = []
  /// Where the next `waitFor` starts looking.
  private var mark = 0
  private var status: Int32?

  /// Starts `host arguments...` with a terminal `columns` wide, in `HostProcess.environment`.
  init(_ arguments: [String], environment: [String: String] = [:], columns: UInt16 = 100) throws {
    // posix_openpt, unlockpt and ptsname as the kernel offers them (Glibc's module hides those).
    master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    // TIOCSPTLCK and TIOCGPTN (<asm-generic/ioctls.h>), macros Swift does not import.
    let setLock: UInt = 0x4004_5431
    let getNumber: UInt = 0x8004_5430
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard master >= 0, ioctl(master, setLock, &unlock) == 0, ioctl(master, getNumber, &number) == 0
    else {
      throw Failure(description: "cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
    }
    let slavePath = "/dev/pts/\(number)"
    var size = winsize(ws_row: 40, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    _ = fcntl(master, F_SETFD, FD_CLOEXEC)

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // After setsid, the first terminal the child opens becomes its controlling terminal.
    posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
    posix_spawn_file_actions_adddup2(&actions, 0, 1)
    posix_spawn_file_actions_adddup2(&actions, 0, 2)
    // POSIX_SPAWN_SETSID, which Swift does not import.
    let setSession: Int32 = 0x80
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigfillset(&defaults)
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(
      &attributes, Int16(setSession | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    var env = HostProcess.environment(adding: environment)
    env["TERM"] = env["TERM"] ?? "xterm"
    let argv = ([HostProcess.executable] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var child: pid_t = 0
    let result = posix_spawn(&child, HostProcess.executable, &actions, &attributes, argv, envp)
    guard result == 0 else {
      close(master)
      throw Failure(description: "cannot start the host: \(String(cString: strerror(result)))")
    }
    pid = child
  }

  deinit {
    if status == nil {
      kill(pid, SIGKILL)
      var raw: Int32 = 0
      waitpid(pid, &raw, 0)
    }
    close(master)
  }

  /// Types `keys` (bytes as a keyboard sends them: "\u{1}" is Ctrl-A, "\u{1B}[A" the up arrow).
  func type(_ keys: String) {
    let bytes = Array(keys.utf8)
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = write(master, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
      }
    }
  }

  /// Reads until the output after the last match holds `text`; returns what came up to its end.
  /// Fails after `timeout` (a bound for a broken host, not a pace) with everything read so far.
  @discardableResult
  func waitFor(_ text: String, timeout: Duration = .seconds(30)) throws -> String {
    let wanted = Array(text.utf8)
    let deadline = ContinuousClock.now + timeout
    while true {
      if let range = find(wanted, from: mark) {
        let seen = String(decoding: output[mark..<range.upperBound], as: UTF8.self)
        mark = range.upperBound
        return seen
      }
      let left = deadline - ContinuousClock.now
      guard left > .zero, readMore(waitingMilliseconds: Int32(left.components.seconds * 1000 + 1)) else {
        throw Failure(description: "no '\(text)' from the host; it wrote:\n\(printable(output[mark...]))")
      }
    }
  }

  /// Types `line` and Enter, then reads until the output holds `text`, as `waitFor` does.
  @discardableResult
  func enter(_ line: String, thenWaitFor text: String, timeout: Duration = .seconds(30)) throws -> String {
    type(line + "\r")
    return try waitFor(text, timeout: timeout)
  }

  /// Types `:quit` and Enter, then waits for the host to exit, as `waitForExit` does.
  func quit(timeout: Duration = .seconds(30)) throws -> Int32 {
    type(":quit\r")
    return try waitForExit(timeout: timeout)
  }

  /// Waits for the host to exit (reading what it writes meanwhile); its shell-style status.
  func waitForExit(timeout: Duration = .seconds(30)) throws -> Int32 {
    let deadline = ContinuousClock.now + timeout
    while true {
      var raw: Int32 = 0
      if waitpid(pid, &raw, WNOHANG) == pid {
        while readMore(waitingMilliseconds: 0) {}
        let code = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        status = code
        return code
      }
      guard ContinuousClock.now < deadline else {
        throw Failure(description: "the host did not exit; it wrote:\n\(printable(output[mark...]))")
      }
      // The host's last output, or the terminal closing as it exits, wakes this read.
      if !readMore(waitingMilliseconds: 100) { continue }
    }
  }

  /// Sends `signal` to the host.
  func send(_ signal: Int32) { kill(pid, signal) }

  /// Resizes the terminal to `columns`, as a person dragging the window does: the kernel sends
  /// the host SIGWINCH.
  func resize(columns: UInt16) {
    var size = winsize(ws_row: 40, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &size)
  }

  /// Everything written after the last match, as text.
  var rest: String { String(decoding: output[mark...], as: UTF8.self) }

  /// All output as text.
  var all: String { String(decoding: output, as: UTF8.self) }

  private func readMore(waitingMilliseconds: Int32) -> Bool {
    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return false }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = read(master, &buffer, buffer.count)
    guard count > 0 else { return false }
    output += buffer[0..<count]
    return true
  }

  private func find(_ wanted: [UInt8], from start: Int) -> Range<Int>? {
    guard !wanted.isEmpty, output.count - start >= wanted.count else { return nil }
    for index in start...(output.count - wanted.count) where output[index] == wanted[0] {
      if output[index..<(index + wanted.count)].elementsEqual(wanted) { return index..<(index + wanted.count) }
    }
    return nil
  }

  private func printable(_ bytes: ArraySlice<UInt8>) -> String {
    TerminalText.sanitized(String(decoding: bytes, as: UTF8.self))
  }
}
