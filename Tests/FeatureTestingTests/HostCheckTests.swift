import FeatureTesting
import Foundation
import Testing

/// `host check` on the built host: the repo's transcripts pass, a wrong one fails with a diff.
@Suite("host check")
struct HostCheckTests {
  static let transcripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Transcripts").path

  /// A fresh folder holding `files` (name -> contents), removed when the test process exits.
  static func folder(_ files: [String: String]) throws -> String {
    let path = try FixturePlugin.temporaryFolder()
    for (name, contents) in files {
      try contents.write(toFile: "\(path)/\(name)", atomically: true, encoding: .utf8)
    }
    return path
  }

  @Test func everyTranscriptOfTheRepoPasses() async throws {
    // given the transcripts of counter, levels, kittens and the tour across them
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.transcripts)
      .filter { $0.hasSuffix(".transcript") }.sorted()
    #expect(
      Set(["counter.transcript", "levels.transcript", "kittens.transcript", "tour.transcript"]).isSubset(of: names))
    // when
    let result = try await HostProcess.run(["check", Self.transcripts])
    // then
    #expect(result.stderr == "")
    #expect(
      result.stdout
        == names.map { "pass \(Self.transcripts)/\($0)\n" }.joined() + "\(names.count) passed, 0 failed\n")
    #expect(result.status == 0)
  }

  static let wrong = """
    # The count is off by one.
    $ host run counter
    > increment
    > :state
    {"clicks":2,"count":2}
    ^D
    Counter
      count:  1
      clicks: 1
    """

  @Test func aWrongTranscriptFailsWithADiffOfExpectedAndActual() async throws {
    // given a transcript that expects the wrong count, beside a right one
    let folder = try Self.folder([
      "wrong.transcript": Self.wrong,
      "right.transcript": "$ host run counter\n> :quit\nCounter\n  count:  0\n  clicks: 0\n",
    ])
    // when
    let result = try await HostProcess.run(["check", folder])
    // then the right one passes, the wrong one shows where it differs, and the run fails
    #expect(
      result.stdout == """
        pass \(folder)/right.transcript
        fail \(folder)/wrong.transcript
        --- \(folder)/wrong.transcript (expected)
        +++ \(folder)/wrong.transcript (actual)
        @@ -2,7 +2,7 @@
         $ host run counter
         > increment
         > :state
        -{"clicks":2,"count":2}
        +{"clicks":1,"count":1}
         ^D
         Counter
           count:  1
        1 passed, 1 failed

        """)
    #expect(result.stderr == "")
    #expect(result.status == 1)
  }

  @Test func updateRewritesAFailingTranscriptWithWhatTheHostPrinted() async throws {
    let folder = try Self.folder(["wrong.transcript": Self.wrong])
    let file = "\(folder)/wrong.transcript"
    let update = try await HostProcess.run(["check", "--update", file])
    #expect(update.stdout == "updated \(file)\n0 passed, 1 failed\n")
    #expect(update.status == 1)
    #expect(
      try String(contentsOfFile: file, encoding: .utf8) == Self.wrong.replacing(
        #""clicks":2,"count":2"#, with: #""clicks":1,"count":1"#) + "\n")
    #expect(try await HostProcess.run(["check", file]).status == 0)
  }

  @Test func aWrongExitStatusAndAnUnreadableTranscriptFail() async throws {
    let folder = try Self.folder([
      "status.transcript": "$ host run nothing\n! error: unknown feature 'nothing'\n",
      "broken.transcript": "> increment\n",
    ])
    let result = try await HostProcess.run(["check", "\(folder)/broken.transcript", "\(folder)/status.transcript"])
    #expect(result.status == 1)
    #expect(result.stdout.hasPrefix("fail \(folder)/broken.transcript\nfail \(folder)/status.transcript\n"))
    // the status line is the one difference the diff shows
    #expect(result.stdout.contains("+[exit 64]\n"))
    #expect(result.stdout.hasSuffix("0 passed, 2 failed\n"))
    #expect(
      result.stderr == """
        error: \(folder)/broken.transcript:1: input before the first '$ host ...' line
        help: see 'host check --help' for the transcript format

        """)
  }

  static let usageCases: [UsageCase] = [
    UsageCase(
      id: "no-files", arguments: ["check"], status: 64,
      stderr: "error: 'check' needs at least one transcript file or folder\nhelp: usage: host check FILE|DIR..."),
    UsageCase(
      id: "missing-file", arguments: ["check", "/nonexistent.transcript"], status: 1,
      stderr: "error: no transcript at '/nonexistent.transcript'"),
    UsageCase(
      id: "bad-timeout", arguments: ["check", "--timeout", "soon", "x"], status: 64,
      stderr: "error: --timeout 'soon' must be a number of seconds above 0"),
    UsageCase(
      id: "unknown-option", arguments: ["check", "--updat"], status: 64,
      stderr: "error: unknown option '--updat' for 'check'\nhelp: did you mean '--update'?"),
  ]

  @Test("a wrong check command says what is wrong", arguments: usageCases)
  func usageErrors(_ usage: UsageCase) async throws {
    let result = try await HostProcess.run(usage.arguments)
    #expect(result.status == usage.status)
    #expect(result.stderr.hasPrefix(usage.stderr))
    #expect(result.stdout == "")
  }
}
