import FeatureTesting
import Foundation
import HostKit
import Testing

@Suite struct TerminalTextTests {
  /// A catalog whose URLs write the clipboard (OSC 52), clear the screen and set the title.
  static let evilCatalog = """
    [{"id": "a", "url": "https://x/\\u001b]52;c;aGVsbG8=\\u0007.jpg", "width": 1, "height": 1},
     {"id": "b", "url": "https://x/\\u001b[2J.jpg", "width": 1, "height": 1},
     {"id": "c", "url": "https://x/\\u001b]0;pwned\\u0007.jpg", "width": 1, "height": 1}]
    """

  struct Case: Sendable, CustomTestStringConvertible {
    let id: String
    let input: String
    let shown: String
    var testDescription: String { id }
  }

  static let cases: [Case] = [
    Case(id: "plain", input: "count: 3 ✓ ünïcode", shown: "count: 3 ✓ ünïcode"),
    Case(id: "newline-and-tab", input: "a\n\tb", shown: "a\n\tb"),
    Case(id: "osc52-clipboard", input: "\u{1B}]52;c;aGk=\u{7}", shown: "\\u001b]52;c;aGk=\\u0007"),
    Case(id: "csi-clear", input: "x\u{1B}[2Jy", shown: "x\\u001b[2Jy"),
    Case(id: "title", input: "\u{1B}]0;pwned\u{1B}\\", shown: "\\u001b]0;pwned\\u001b\\"),
    Case(id: "carriage-return", input: "ok\rno", shown: "ok\\u000dno"),
    Case(id: "delete", input: "a\u{7F}", shown: "a\\u007f"),
    Case(id: "c1-csi", input: "a\u{9B}2J", shown: "a\\u009b2J"),
    Case(id: "bidi-override", input: "abc\u{202E}fed", shown: "abc\\u202efed"),
    Case(id: "nul", input: "a\u{0}b", shown: "a\\u0000b"),
  ]

  @Test(arguments: cases) func controlCharactersBecomeVisible(_ example: Case) {
    #expect(TerminalText.sanitized(example.input) == example.shown)
  }

  @Test func echoedInputIsCutAtTwoHundredCharactersWithTheBytesLeftCounted() {
    let long = String(repeating: "é", count: 250)
    let echoed = TerminalText.echoed(long)
    #expect(echoed == String(repeating: "é", count: 200) + "... (100 more bytes)")
    #expect(TerminalText.echoed("short\u{1B}") == "short\\u001b")
  }

  @Test func aMessageQuotingLongInputCutsTheQuotedPartOnly() {
    let typed = String(repeating: "x", count: 300)
    let message = TerminalText.message("unknown action '\(typed)' for counter")
    #expect(message == "unknown action '\(String(repeating: "x", count: 200))... (100 more bytes)' for counter")
  }

  @Test func aPipeGetsViewsAndEchoesSanitizedToo() throws {
    let scratch = try JournalScratch()
    try Self.evilCatalog.write(toFile: scratch.file("evil.json"), atomically: true, encoding: .utf8)
    let result = try HostProcess.run(
      ["run", "kittens", "--config", "endpoint=file://\(scratch.file("evil.json"))"],
      input: "\u{1B}]0;typed\u{7}\n" + String(repeating: "y", count: 1000) + "\n")
    #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"))
    #expect(result.stdout.contains("  1. https://x/\\u001b]52;c;aGVsbG8=\\u0007.jpg"))
    #expect(result.stderr.contains("unknown action '\\u001b]0;typed\\u0007'"))
    #expect(result.stderr.contains("\(String(repeating: "y", count: 200))... (800 more bytes)'"))
    #expect(result.status == 0)
  }
}
