import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `ChildProcess`: how a child ended, what it printed, what it read, and when it cannot start.
@Suite("Child process")
struct ChildProcessTests {
  static func shell(_ script: String) -> ChildProcess {
    ChildProcess("/bin/sh", arguments: ["-c", script])
  }

  @Test func anExitStatusIsReported() throws {
    let result = try Self.shell("echo out; echo err >&2; exit 3").run(timeout: .seconds(60))
    #expect(result.termination == .exited(3))
    #expect(result.outputText == "out\n")
    #expect(result.errorText == "err\n")
  }

  @Test func theChildInheritsNoDescriptorItWasNotGiven() throws {
    // given a descriptor this process opened without close-on-exec (as a library's socket may be)
    let open = Glibc.open("/dev/null", O_RDONLY)
    #expect(open > STDERR_FILENO)
    defer { close(open) }
    // when a child looks for it
    let result = try Self.shell("test -e /proc/self/fd/\(open) && echo inherited || echo closed").run(
      timeout: .seconds(60))
    // then it is not there, so closing it here really closes it
    #expect(result.outputText == "closed\n")
  }

  @Test func aSignalThatEndsTheChildIsReported() throws {
    let result = try Self.shell("kill -TERM $$").run(timeout: .seconds(60))
    #expect(result.termination == .signalled(SIGTERM))
    #expect(result.termination.shellStatus == 128 + SIGTERM)
  }

  @Test func aChildPastItsDeadlineIsKilledAndReportedAsTimedOut() throws {
    // given a child that would sleep for 30 s, which prints before it sleeps
    let result = try Self.shell("echo started; exec sleep 30").run(timeout: .milliseconds(300))
    // then it is killed at the deadline, and what it printed first is kept
    #expect(result.termination == .timedOut)
    #expect(result.outputText == "started\n")
  }

  @Test func aChildWhoseDescendantHoldsItsPipeReportsItsOwnExit() throws {
    // given a shell that exits at once, leaving a grandchild that holds its output pipe
    let result = try Self.shell("sleep 30 & echo done").run(timeout: .milliseconds(300))
    // then at the deadline the group is killed, and the shell's own exit is what is reported
    #expect(result.termination == .exited(0))
    #expect(result.outputText == "done\n")
  }

  @Test func largeOutputOnBothPipesAtOnceDoesNotDeadlock() throws {
    // given a child that fills stderr before it writes stdout, and stderr again after
    let result = try Self.shell(
      "head -c 1000000 /dev/zero >&2; head -c 1000000 /dev/zero; head -c 500000 /dev/zero >&2"
    ).run(timeout: .seconds(120))
    #expect(result.termination == .exited(0))
    #expect(result.standardOutput.count == 1_000_000)
    #expect(result.standardError.count == 1_500_000)
  }

  @Test func stdinBytesAreDeliveredWhileOutputIsRead() throws {
    // given more input than a pipe holds, echoed back by cat (both pipes fill at once)
    let input = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
    var process = ChildProcess("cat")
    process.standardInput = .bytes(input)
    let result = try process.run(timeout: .seconds(120))
    #expect(result.termination == .exited(0))
    #expect(result.standardOutput == input)
  }

  @Test func inputAChildDoesNotReadIsDroppedWithoutSIGPIPE() throws {
    var process = ChildProcess("/bin/true")
    process.standardInput = .bytes([UInt8](repeating: 120, count: 1_000_000))
    #expect(try process.run(timeout: .seconds(60)).termination == .exited(0))
  }

  @Test func stdinIsEmptyByDefault() throws {
    let result = try ChildProcess("cat").run(timeout: .seconds(60))
    #expect(result.termination == .exited(0))
    #expect(result.standardOutput == [])
  }

  @Test func environmentAndWorkingDirectoryAreTheGivenOnes() throws {
    var process = ChildProcess(
      "/bin/sh", arguments: ["-c", "echo \"$GREETING|$HOME\"; pwd"], environment: ["GREETING": "hi"])
    process.workingDirectory = "/"
    let result = try process.run(timeout: .seconds(60))
    #expect(result.outputText == "hi|\n/\n")
  }

  @Test func anExtraDescriptorGetsAPipeOfItsOwn() throws {
    var process = Self.shell("echo verdict >&3; echo noise")
    process.extraOutputs = [3]
    let result = try process.run(timeout: .seconds(60))
    #expect(result.extraOutputs == [3: Array("verdict\n".utf8)])
    #expect(result.outputText == "noise\n")
  }

  @Test func errorCanJoinOutputInOrder() throws {
    var process = Self.shell("echo one; echo two >&2; echo three")
    process.errorIntoOutput = true
    let result = try process.run(timeout: .seconds(60))
    #expect(result.outputText == "one\ntwo\nthree\n")
    #expect(result.standardError == [])
  }

  @Test func captureLastKeepsOnlyTheEnd() throws {
    var process = ChildProcess("seq", arguments: ["1", "200000"])
    process.standardOutput = .captureLast(14)
    let result = try process.run(timeout: .seconds(60))
    #expect(result.outputText == "199999\n200000\n")
  }

  @Test func aLiveChildAnswersLineByLine() throws {
    // given cat, fed one line at a time through a pipe
    var process = ChildProcess("cat")
    process.standardInput = .pipe
    let child = try process.start()
    let deadline = ContinuousClock.now + .seconds(60)
    var received: [UInt8] = []
    for line in ["first\n", "second\n"] {
      // when a line is written, then read back
      child.write(line.utf8)
      while received.count < line.utf8.count, child.pump(until: deadline) { received += child.take(1) }
      // then it comes back before the input ends
      #expect(String(decoding: received, as: UTF8.self) == line)
      received = []
    }
    let result = child.finish(until: deadline)
    #expect(result.termination == .exited(0))
  }

  @Test func aSignalSentToTheGroupEndsTheChild() throws {
    var process = ChildProcess("sleep", arguments: ["30"])
    process.standardOutput = .discard
    let child = try process.start()
    child.signalGroup(SIGKILL)
    #expect(child.finish(until: .now + .seconds(60)).termination == .signalled(SIGKILL))
  }

  struct BadStart: CustomTestStringConvertible, Sendable {
    let id: String
    let process: ChildProcess
    let failure: ChildProcessFailure
    var testDescription: String { id }
  }

  static let badStarts: [BadStart] = {
    var extraZero = ChildProcess("/bin/true")
    extraZero.extraOutputs = [1]
    var extraHigh = ChildProcess("/bin/true")
    extraHigh.extraOutputs = [10]
    var extraTwice = ChildProcess("/bin/true")
    extraTwice.extraOutputs = [3, 3]
    var missingFolder = ChildProcess("/bin/true")
    missingFolder.workingDirectory = "/nonexistent-featurehost-folder"
    return [
      BadStart(
        id: "missing-path", process: ChildProcess("/nonexistent/featurehost-tool"),
        failure: .cannotStart(executable: "/nonexistent/featurehost-tool", reason: "No such file or directory")),
      BadStart(
        id: "missing-name", process: ChildProcess("featurehost-no-such-tool"),
        failure: .cannotStart(executable: "featurehost-no-such-tool", reason: "No such file or directory")),
      BadStart(
        id: "a-folder", process: ChildProcess("/etc"),
        failure: .cannotStart(executable: "/etc", reason: "Permission denied")),
      BadStart(
        id: "missing-folder", process: missingFolder,
        failure: .cannotEnterFolder("/nonexistent-featurehost-folder", reason: "No such file or directory")),
      BadStart(id: "extra-stdout", process: extraZero, failure: .descriptorNotAllowed(1)),
      BadStart(id: "extra-10", process: extraHigh, failure: .descriptorNotAllowed(10)),
      BadStart(id: "extra-twice", process: extraTwice, failure: .descriptorNotAllowed(3)),
    ]
  }()

  @Test("a child that cannot start is a clear error naming it", arguments: badStarts)
  func aChildThatCannotStartIsAClearError(_ bad: BadStart) {
    #expect(throws: bad.failure) { try bad.process.run(timeout: .seconds(60)) }
  }

  @Test func theErrorForAMissingProgramNamesIt() {
    let failure = ChildProcessFailure.cannotStart(
      executable: "/nonexistent/featurehost-tool", reason: "No such file or directory")
    #expect(
      HostError(failure).description == """
        error: cannot start '/nonexistent/featurehost-tool': No such file or directory
        help: check that '/nonexistent/featurehost-tool' exists and is executable
        """)
  }
}

/// `RunningChild.finish(budget:cap:)`: time a child waits for a CPU does not count, time it
/// waits for anything else does.
@Suite("Child process budget")
struct ChildProcessBudgetTests {
  @Test func aChildWaitingForSomethingElseEndsAtItsBudget() throws {
    // given a child that sleeps far longer than its budget (sleeping is not waiting for a CPU)
    let child = try ChildProcessTests.shell("sleep 30").start()
    // when it is given 0.3 s, with a cap of 60 s
    let result = child.finish(budget: .milliseconds(300), cap: .seconds(60))
    // then it is killed at its budget, not at the cap and not after its sleep
    #expect(result.termination == .timedOut)
  }

  @Test func aChildKeptOffTheCPUByABusyMachineIsNotKilledForIt() throws {
    // given seven busy loops and a child with about 0.2 s of work, all on CPU 0
    let spinners = try (0..<7).map { _ in
      try ChildProcess("/usr/bin/taskset", arguments: ["-c", "0", "/bin/sh", "-c", "while :; do :; done"]).start()
    }
    defer { for spinner in spinners { spinner.signalGroup(SIGKILL) } }
    let work = try ChildProcess(
      "/usr/bin/taskset",
      arguments: ["-c", "0", "/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo done"]
    ).start()
    // when it is given a budget it can only keep by not counting its wait for the CPU
    let budget = Duration.milliseconds(1500)
    let begun = ContinuousClock.now
    let result = work.finish(budget: budget, cap: .seconds(120))
    let took = ContinuousClock.now - begun
    // then it finishes its work
    #expect(result.termination == .exited(0))
    #expect(result.outputText == "done\n")
    // (and the machine really kept it waiting past the budget, or this showed nothing)
    withKnownIssue("the busy loops did not slow the child past its budget", isIntermittent: true) {
      #expect(took > budget)
    }
  }
}
