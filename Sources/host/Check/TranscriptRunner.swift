import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the sections of a transcript through the real host executable, in pipes, exactly as a
/// shell would, and collects what the host printed in answer to each line.
///
/// For `host run`, each typed line is followed by two lines the transcript does not show: `:state`,
/// which waits on the store thread for the actions queued before it (so refusals are printed),
/// and an unknown command `:transcript-barrier-N`, whose error on stderr marks where the answer to
/// the line ends. The stdout written before that error is already in the pipe when it arrives, so
/// the split does not depend on timing. The `:state` line printed for the barrier is dropped.
/// Errors are compared without the `line N: ` a pipe puts before them: the numbers count the
/// lines the runner adds too, which the transcript does not show.
struct TranscriptRunner: Sendable {
  /// The `host` executable to run.
  var hostExecutable: String
  /// Plugin folders passed as `--plugins DIR` before each section's own arguments.
  var pluginDirectories: [String]
  /// How long the host may take to answer one line (or to exit after end of input).
  var stepTimeout: Duration

  init(hostExecutable: String, pluginDirectories: [String] = [], stepTimeout: Duration = .seconds(30)) {
    self.hostExecutable = hostExecutable
    self.pluginDirectories = pluginDirectories
    self.stepTimeout = stepTimeout
  }

  /// Runs every section in order, one host process each.
  func run(_ transcript: Transcript) -> [SectionOutcome] {
    transcript.runnableSections.map(run)
  }

  private func run(_ section: Transcript.Section) -> SectionOutcome {
    let arguments = pluginDirectories.flatMap { ["--plugins", $0] } + section.arguments
    var environment = ChildProcess.currentEnvironment
    environment["NO_COLOR"] = "1"
    environment.merge(section.environment) { _, new in new }
    var process = ChildProcess(hostExecutable, arguments: arguments, environment: environment)
    process.standardInput = .pipe
    var outputs: [[Transcript.Output]] = []
    let child: RunningChild
    do {
      child = try process.start()
    } catch {
      return SectionOutcome(
        outputs: section.steps.map { _ in [] }, exitStatus: 127, problem: "cannot start \(hostExecutable): \(error)")
    }
    let pipes = HostPipes(child)
    // `host run ...`, and `host` alone (the main flow), read one line at a time.
    let command = Self.command(of: section.arguments)
    let interactive = command == "run" || command == nil
    var problem: String?
    var barrier = 0
    // The lines written so far: the barrier's error names its line.
    var written = 0
    for step in section.steps {
      guard problem == nil else {
        outputs.append([])
        continue
      }
      let deadline = ContinuousClock.now + stepTimeout
      switch step.kind {
      case .start, .input:
        guard interactive else {
          // Not an interactive command: its input is all written at once, its output is the start's.
          if case .input(let text) = step.kind { child.write((text + "\n").utf8) }
          outputs.append([])
          continue
        }
        barrier += 1
        if case .input(let text) = step.kind {
          child.write((text + "\n").utf8)
          written += 1
        }
        child.write(":state\n:transcript-barrier-\(barrier)\n".utf8)
        written += 2
        let answer = pipes.readAnswer(barrier: barrier, line: written, until: deadline)
        outputs.append(answer.lines)
        if answer.timedOut { problem = "no answer within \(stepTimeout) to \(Self.describe(step.kind))" }
      case .endOfInput:
        child.closeInput()
        let rest = pipes.readToEnd(until: deadline)
        if rest.timedOut { problem = "the host did not exit within \(stepTimeout) after end of input" }
        if interactive {
          outputs.append(rest.lines)
        } else {
          outputs[0] =
            rest.lines.filter { if case .stdout = $0 { true } else { false } }
            + rest.lines.filter { if case .stderr = $0 { true } else { false } }
          outputs.append([])
        }
      }
    }
    if problem != nil { child.signalGroup(SIGTERM) }
    // A host that ignores SIGTERM is killed when this deadline passes.
    let termination = child.finish(until: .now + stepTimeout).termination
    var status: Int32
    switch termination {
    case .exited(let code): status = code
    case .signalled(let signal):
      status = signal
      if problem == nil {
        problem = "the host was killed by signal \(signal)"
        status = 128 + signal
      }
    case .timedOut:
      status = SIGKILL
      if problem == nil { problem = "the host did not exit within \(stepTimeout)" }
    }
    return SectionOutcome(outputs: outputs, exitStatus: status, problem: problem)
  }

  /// The host command in `arguments` (`run` in `--plugins DIR run counter`), skipping global options.
  static func command(of arguments: [String]) -> String? {
    var rest = arguments[...]
    let takesValue: Set<String> = [
      "--plugins", "--session", "--config", "--max-feedback-steps", "--settle-timeout", "--flow",
    ]
    while let first = rest.first, first.hasPrefix("-") {
      rest = rest.dropFirst(takesValue.contains(first) ? 2 : 1)
    }
    return rest.first
  }

  private static func describe(_ kind: Transcript.StepKind) -> String {
    switch kind {
    case .start: "the start of the host"
    case .input(let text): "'> \(text)'"
    case .endOfInput: "end of input"
    }
  }
}

/// The output of one host process, split into the answers to each line.
private final class HostPipes {
  struct Answer {
    var lines: [Transcript.Output]
    var timedOut = false
  }

  private let child: RunningChild
  private var outputBytes: [UInt8] = []
  private var errorBytes: [UInt8] = []
  private var outputEnded: Bool { child.outputEnded(STDOUT_FILENO) }
  private var errorsEnded: Bool { child.outputEnded(STDERR_FILENO) }

  init(_ child: RunningChild) {
    self.child = child
  }

  /// Reads until the error the barrier `:transcript-barrier-N` causes, and returns what came
  /// before it on both streams (without the barrier's own `:state` line), or everything up to end
  /// of file if the host exits first.
  func readAnswer(barrier: Int, line: Int, until deadline: ContinuousClock.Instant) -> Answer {
    let marker = Array("error: line \(line): unknown command ':transcript-barrier-\(barrier)'\n".utf8)
    while true {
      if let start = errorBytes.firstRange(of: marker)?.lowerBound {
        let afterMarker = start + marker.count
        // The help line comes in the same write as the error line.
        if let helpEnd = errorBytes[afterMarker...].firstIndex(of: UInt8(ascii: "\n")) {
          let before = Array(errorBytes[..<start])
          errorBytes.removeFirst(helpEnd + 1)
          readAvailable()
          var stdout = takeCompleteLines(&outputBytes)
          if let last = stdout.last, last.hasPrefix("{") { stdout.removeLast() }
          return Answer(lines: stdout.map(Transcript.Output.stdout) + Self.errorLines(before))
        }
      }
      if outputEnded && errorsEnded { return Answer(lines: takeEverything()) }
      guard waitAndRead(until: deadline) else { return Answer(lines: takeEverything(), timedOut: true) }
    }
  }

  /// Reads both streams to end of file.
  func readToEnd(until deadline: ContinuousClock.Instant) -> Answer {
    while !(outputEnded && errorsEnded) {
      guard waitAndRead(until: deadline) else { return Answer(lines: takeEverything(), timedOut: true) }
    }
    return Answer(lines: takeEverything())
  }

  /// Waits for either stream to have data (or end), and takes it. False once the deadline passed.
  private func waitAndRead(until deadline: ContinuousClock.Instant) -> Bool {
    guard child.pump(until: deadline) else { return false }
    collect()
    return true
  }

  /// Takes whatever both streams hold right now, without waiting.
  private func readAvailable() {
    child.pumpAvailable()
    collect()
  }

  private func collect() {
    outputBytes += child.take(STDOUT_FILENO)
    errorBytes += child.take(STDERR_FILENO)
  }

  private func takeEverything() -> [Transcript.Output] {
    let stdout = Self.lines(outputBytes).map(Transcript.Output.stdout)
    let stderr = Self.errorLines(errorBytes)
    outputBytes.removeAll()
    errorBytes.removeAll()
    return stdout + stderr
  }

  private func takeCompleteLines(_ bytes: inout [UInt8]) -> [String] {
    guard let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
    let complete = Array(bytes[...lastNewline])
    bytes.removeFirst(lastNewline + 1)
    return Self.lines(complete)
  }

  /// The stderr lines of `bytes`, each `error: line N: ` as `error: `.
  private static func errorLines(_ bytes: [UInt8]) -> [Transcript.Output] {
    lines(bytes).map { line in
      guard line.hasPrefix("error: line "), let colon = line.dropFirst(12).firstIndex(of: ":"),
        line[line.index(line.startIndex, offsetBy: 12)..<colon].allSatisfy(\.isNumber)
      else { return .stderr(line) }
      return .stderr("error:" + line[line.index(after: colon)...])
    }
  }

  /// The lines of `bytes`; a last line without its newline counts too.
  private static func lines(_ bytes: [UInt8]) -> [String] {
    guard !bytes.isEmpty else { return [] }
    var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
  }
}
