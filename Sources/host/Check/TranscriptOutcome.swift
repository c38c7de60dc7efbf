/// What the host actually printed for one section of a transcript.
struct SectionOutcome: Sendable, Equatable {
  /// Per step of the section (`Transcript.runnableSections`), what the host printed.
  var outputs: [[Transcript.Output]]
  var exitStatus: Int32
  /// Why the run could not be completed (a timeout), if it could not.
  var problem: String?

  init(outputs: [[Transcript.Output]], exitStatus: Int32, problem: String? = nil) {
    self.outputs = outputs
    self.exitStatus = exitStatus
    self.problem = problem
  }
}

extension Transcript {
  /// Whether the host printed what the transcript expects: per step, the same stdout lines in
  /// order and the same stderr lines in order; the same exit status; no problem.
  func matches(_ outcomes: [SectionOutcome]) -> Bool {
    let sections = runnableSections
    guard sections.count == outcomes.count else { return false }
    for (section, outcome) in zip(sections, outcomes) {
      guard outcome.problem == nil, outcome.exitStatus == section.exitStatus,
        outcome.outputs.count == section.steps.count
      else { return false }
      for (step, actual) in zip(section.steps, outcome.outputs)
      where step.expected.stdoutLines != actual.stdoutLines || step.expected.stderrLines != actual.stderrLines {
        return false
      }
    }
    return true
  }

  /// The transcript as it would read had it been written from `outcomes`: every comment, blank,
  /// command and input line kept as it is, each step's output replaced by what the host printed.
  func rendered(with outcomes: [SectionOutcome]) -> [String] {
    // Which step each `$`, `>` and `^D` line opens.
    var stepAtLine: [Int: (section: Int, step: Int)] = [:]
    let sections = runnableSections
    for (sectionIndex, section) in sections.enumerated() {
      for (stepIndex, step) in section.steps.enumerated() {
        if let line = step.line { stepAtLine[line] = (sectionIndex, stepIndex) }
      }
    }
    var result: [String] = []
    for (index, line) in lines.enumerated() {
      switch line {
      case .output, .exit:
        continue
      default:
        result.append(rawLines[index])
      }
      guard let (sectionIndex, stepIndex) = stepAtLine[index], sectionIndex < outcomes.count else { continue }
      let section = sections[sectionIndex]
      let outcome = outcomes[sectionIndex]
      let actual = stepIndex < outcome.outputs.count ? outcome.outputs[stepIndex] : []
      result += arranged(actual, like: section.steps[stepIndex].expected).map(render)
      guard
        stepIndex == section.steps.count - 1
          || (stepIndex == section.steps.count - 2 && section.steps.last?.line == nil)
      else { continue }
      // After the section's last written step: an end of input the file left out, the exit status.
      if section.steps.last?.line == nil, let end = outcome.outputs.last, !end.isEmpty {
        result.append("^D")
        result += end.map(render)
      }
      if outcome.exitStatus != 0 { result.append("[exit \(outcome.exitStatus)]") }
      if let problem = outcome.problem { result.append("# host check: \(problem)") }
    }
    return result
  }

  /// `actual` in the order the expected lines interleave the two streams, where they agree, so a
  /// diff shows only real differences.
  private func arranged(_ actual: [Output], like expected: [Output]) -> [Output] {
    var stdout = actual.stdoutLines[...]
    var stderr = actual.stderrLines[...]
    var result: [Output] = []
    for line in expected {
      switch line {
      case .stdout:
        if let next = stdout.popFirst() { result.append(.stdout(next)) }
      case .stderr:
        if let next = stderr.popFirst() { result.append(.stderr(next)) }
      }
    }
    return result + stdout.map(Output.stdout) + stderr.map(Output.stderr)
  }

  /// One output line as the format writes it, with the transcript's folder as `$TESTDIR`.
  func render(_ output: Output) -> String {
    switch output {
    case .stderr(let text):
      let text = collapse(text)
      return text.isEmpty ? "!" : "! \(text)"
    case .stdout(let text):
      let text = collapse(text)
      let reserved = ["#", "$", ">", "!", "\\", "^D", "[exit"]
      if text.trimmingWhitespace().isEmpty || reserved.contains(where: text.hasPrefix) { return "\\\(text)" }
      return text
    }
  }

  private func collapse(_ text: String) -> String {
    directory.count > 1 ? text.replacing(directory, with: "$TESTDIR") : text
  }
}

extension [Transcript.Output] {
  var stdoutLines: [String] {
    compactMap { if case .stdout(let text) = $0 { text } else { nil } }
  }

  var stderrLines: [String] {
    compactMap { if case .stderr(let text) = $0 { text } else { nil } }
  }
}
