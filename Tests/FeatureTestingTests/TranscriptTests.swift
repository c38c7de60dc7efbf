import HostKit
import Testing

@testable import host

/// The transcript format: parsing, what a section expects, and rendering back what ran.
@Suite("Transcript format")
struct TranscriptTests {
  static let sample = """
    # A comment, then a section.
    $ LEVELS_INTERVAL=0 host --plugins "$TESTDIR/my plugins" run levels --config '{"a": 1}'
    > set left=1 right=3
    > :state
    {"left":1,"right":3}
    > bad
    ! error: unknown action 'bad' for levels
    !
    ^D
    \\# not a comment
    \\
    [exit 1]

    $ host list
    """

  @Test func aSectionHoldsItsCommandInputsAndExpectedOutput() throws {
    let transcript = try Transcript(parsing: Self.sample, directory: "/t")
    #expect(transcript.sections.count == 2)
    let levels = transcript.sections[0]
    #expect(levels.environment == ["LEVELS_INTERVAL": "0"])
    #expect(levels.arguments == ["--plugins", "/t/my plugins", "run", "levels", "--config", #"{"a": 1}"#])
    #expect(levels.exitStatus == 1)
    #expect(
      levels.steps.map(\.kind) == [.start, .input("set left=1 right=3"), .input(":state"), .input("bad"), .endOfInput])
    #expect(
      levels.steps.map(\.expected) == [
        [], [], [.stdout(#"{"left":1,"right":3}"#)],
        [.stderr("error: unknown action 'bad' for levels"), .stderr("")],
        [.stdout("# not a comment"), .stdout("")],
      ])
    #expect(transcript.sections[1].arguments == ["list"])
  }

  @Test func aSectionWithoutEndOfInputStillEndsWithOne() throws {
    let transcript = try Transcript(parsing: "$ host run counter\n> increment\n", directory: "/t")
    #expect(transcript.sections[0].steps.map(\.kind) == [.start, .input("increment")])
    #expect(transcript.runnableSections[0].steps.map(\.kind) == [.start, .input("increment"), .endOfInput])
    #expect(transcript.runnableSections[0].steps.last?.line == nil)
  }

  @Test func whatRanIsRenderedInTheFilesOwnLayout() throws {
    let transcript = try Transcript(parsing: Self.sample, directory: "/t")
    let outcomes = [
      SectionOutcome(
        outputs: [
          [], [], [.stdout(#"{"left":2,"right":2}"#)],
          [.stderr("error: unknown action 'bad' for levels"), .stderr("")],
          [.stdout("> looks like input"), .stdout("/t/cats.json")],
        ], exitStatus: 0),
      SectionOutcome(outputs: [[.stdout("counter")], [.stderr("late")]], exitStatus: 2),
    ]
    #expect(!transcript.matches(outcomes))
    #expect(
      transcript.rendered(with: outcomes) == [
        "# A comment, then a section.",
        #"$ LEVELS_INTERVAL=0 host --plugins "$TESTDIR/my plugins" run levels --config '{"a": 1}'"#,
        "> set left=1 right=3",
        "> :state",
        #"{"left":2,"right":2}"#,
        "> bad",
        "! error: unknown action 'bad' for levels",
        "!",
        "^D",
        "\\> looks like input",
        // a line starting with `$` would read as a command: escaped
        "\\$TESTDIR/cats.json",
        "",
        "$ host list",
        "counter",
        "^D",
        "! late",
        "[exit 2]",
      ])
  }

  @Test func theSameOutputMatchesWhateverTheOrderOfTheTwoStreams() throws {
    let transcript = try Transcript(parsing: "$ host run x\n> a\n! e\nout\n^D\n", directory: "/t")
    #expect(transcript.matches([SectionOutcome(outputs: [[], [.stdout("out"), .stderr("e")], []], exitStatus: 0)]))
    #expect(!transcript.matches([SectionOutcome(outputs: [[], [.stdout("out")], [.stderr("e")]], exitStatus: 0)]))
    #expect(!transcript.matches([SectionOutcome(outputs: [[], [.stdout("out"), .stderr("e")], []], exitStatus: 1)]))
  }

  struct BadTranscript: CustomTestStringConvertible, Sendable {
    let id: String
    let text: String
    let error: Transcript.ParseError
    var testDescription: String { id }
  }

  static let badTranscripts: [BadTranscript] = [
    BadTranscript(
      id: "input-before-section", text: "# hi\n> increment\n",
      error: .init(line: 2, message: "input before the first '$ host ...' line")),
    BadTranscript(
      id: "output-before-section", text: "Counter\n",
      error: .init(line: 1, message: "output before the first '$ host ...' line (a comment starts with '#')")),
    BadTranscript(
      id: "not-a-host-command", text: "$ ls -l\n",
      error: .init(line: 1, message: "a section starts with '$ host ...' (a host command), got '$ ls -l'")),
    BadTranscript(
      id: "input-after-end", text: "$ host run counter\n^D\n> increment\n",
      error: .init(line: 3, message: "input after '^D' (end of input)")),
    BadTranscript(
      id: "second-end", text: "$ host run counter\n^D\n^D\n",
      error: .init(line: 3, message: "a second '^D' in one section")),
    BadTranscript(
      id: "bad-exit", text: "$ host run counter\n[exit one]\n",
      error: .init(line: 2, message: "'[exit one]' is not an exit status; write [exit N]")),
    BadTranscript(
      id: "unterminated-quote", text: "$ host run kittens --config 'endpoint=x\n",
      error: .init(line: 1, message: "unterminated ' in '$ host run kittens --config 'endpoint=x'")),
    BadTranscript(
      id: "end-with-text", text: "$ host run counter\n^D now\n",
      error: .init(line: 2, message: "'^D now': end of input is '^D' alone on its line")),
  ]

  @Test("a malformed transcript is refused with its line and why", arguments: badTranscripts)
  func malformedTranscriptIsRefused(_ bad: BadTranscript) {
    #expect(throws: bad.error) { try Transcript(parsing: bad.text, directory: "/t") }
  }

  @Test func aUnifiedDiffShowsTheChangedLinesWithContext() {
    let old = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
    var new = old
    new[1] = "B"
    new.insert("x", at: 9)
    #expect(
      LineDiff.unified(old: old, new: new, oldName: "f (expected)", newName: "f (actual)", context: 2) == """
        --- f (expected)
        +++ f (actual)
        @@ -1,4 +1,4 @@
         a
        -b
        +B
         c
         d
        @@ -8,3 +8,4 @@
         h
         i
        +x
         j
        """)
    #expect(LineDiff.unified(old: old, new: old, oldName: "a", newName: "b") == "")
  }
}
