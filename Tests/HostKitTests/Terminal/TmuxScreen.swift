import FeatureTesting
import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// The built `host` in a tmux pane: the screen a person sees, after every cursor movement and
/// erase, read with `capture-pane`. Where `PseudoTerminal` shows the bytes written, this shows
/// where they landed (a view drawn on the prompt's line, a prompt that did not come back).
/// Each screen runs a tmux server of its own, ended with it.
final class TmuxScreen {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let socket: String
  private let folder: String
  private var statusFile: String { "\(folder)/status" }

  /// Whether tmux is there to run the tests that need it.
  static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

  /// Starts `host arguments...` in a pane `columns` wide, in `HostProcess.environment` plus
  /// `environment` (TERM among it: xterm-256color unless given).
  init(_ arguments: [String], environment: [String: String] = [:], columns: Int = 100, rows: Int = 40) throws {
    folder = try FixturePlugin.temporaryFolder()
    socket = "\(folder)/tmux.socket"
    // The pane stays after the host exits, so its status can be read.
    try "set -g remain-on-exit on\nset -g history-limit 5000\n".write(
      toFile: "\(folder)/tmux.conf", atomically: true, encoding: .utf8)
    var env = HostProcess.environment(adding: environment)
    env["TERM"] = environment["TERM"] ?? "xterm-256color"
    // The shell writes the host's status to a file: tmux may leave the host unreaped a while.
    let command =
      (["env", "-i"] + env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      + [HostProcess.executable] + arguments).map(Self.quoted).joined(separator: " ")
      + "; echo $? > \(Self.quoted(statusFile))"
    // The server this starts keeps the descriptors it was given: none that a read waits on.
    try tmux(["new-session", "-d", "-s", "host", "-x", "\(columns)", "-y", "\(rows)", command], capturing: false)
  }

  deinit {
    _ = try? tmux(["kill-server"])
    try? FileManager.default.removeItem(atPath: folder)
  }

  /// Types `text` as it is (no key names): "\r" is Enter.
  func type(_ text: String) throws { try tmux(["send-keys", "-t", "host", "-l", text]) }

  /// Presses the keys tmux names (`C-d`, `Enter`).
  func press(_ keys: String...) throws { try tmux(["send-keys", "-t", "host"] + keys) }

  /// The screen's lines, trailing blanks cut, the empty lines at the bottom dropped.
  func screen() throws -> [String] {
    let text = try tmux(["capture-pane", "-p", "-t", "host"])
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
      String($0.reversed().drop { $0 == " " }.reversed())
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    return lines
  }

  /// Polls the screen until `condition` holds, and returns it; fails after `timeout` (a bound
  /// for a broken host, not a pace) showing the screen.
  @discardableResult
  func waitForScreen(
    _ what: String, timeout: Duration = .seconds(30), _ condition: ([String]) -> Bool
  ) throws -> [String] {
    let deadline = ContinuousClock.now + timeout
    while true {
      let lines = try screen()
      if condition(lines) { return lines }
      guard ContinuousClock.now < deadline else {
        throw Failure(description: "the screen never showed \(what):\n\(lines.joined(separator: "\n"))")
      }
      // Polling the screen: tmux has no signal for "drawn".
      usleep(10_000)
    }
  }

  /// The last line of the screen once it is `line`.
  @discardableResult
  func waitForLastLine(_ line: String, timeout: Duration = .seconds(30)) throws -> [String] {
    try waitForScreen("'\(line)' as its last line", timeout: timeout) { $0.last == line }
  }

  /// The host's exit status once it has exited.
  func waitForExit(timeout: Duration = .seconds(30)) throws -> Int32 {
    let deadline = ContinuousClock.now + timeout
    while true {
      let written = (try? String(contentsOfFile: statusFile, encoding: .utf8)) ?? ""
      if written.hasSuffix("\n"), let status = Int32(written.dropLast()) { return status }
      guard ContinuousClock.now < deadline else {
        let screen = (try? screen().joined(separator: "\n")) ?? ""
        throw Failure(description: "the host did not exit; the screen:\n\(screen)")
      }
      usleep(5_000)
    }
  }

  @discardableResult
  private func tmux(_ arguments: [String], capturing: Bool = true) throws -> String {
    var process = ChildProcess("/usr/bin/tmux", arguments: ["-S", socket, "-f", "\(folder)/tmux.conf"] + arguments)
    process.standardOutput = capturing ? .capture : .discard
    process.standardError = capturing ? .capture : .discard
    process.errorIntoOutput = capturing
    let result = try process.run(timeout: .seconds(30))
    guard result.termination == .exited(0) else {
      throw Failure(description: "tmux \(arguments.first ?? "") \(result.termination): \(result.outputText)")
    }
    return result.outputText
  }

  private static func quoted(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
