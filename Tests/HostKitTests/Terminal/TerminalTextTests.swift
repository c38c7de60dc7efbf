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

  static let cases: [TextCase] = [
    TextCase(id: "plain", text: "count: 3 ✓ ünïcode", expected: "count: 3 ✓ ünïcode"),
    TextCase(id: "newline-and-tab", text: "a\n\tb", expected: "a\n\tb"),
    TextCase(id: "osc52-clipboard", text: "\u{1B}]52;c;aGk=\u{7}", expected: "\\u001b]52;c;aGk=\\u0007"),
    TextCase(id: "csi-clear", text: "x\u{1B}[2Jy", expected: "x\\u001b[2Jy"),
    TextCase(id: "title", text: "\u{1B}]0;pwned\u{1B}\\", expected: "\\u001b]0;pwned\\u001b\\"),
    TextCase(id: "carriage-return", text: "ok\rno", expected: "ok\\u000dno"),
    TextCase(id: "delete", text: "a\u{7F}", expected: "a\\u007f"),
    TextCase(id: "c1-csi", text: "a\u{9B}2J", expected: "a\\u009b2J"),
    TextCase(id: "bidi-override", text: "abc\u{202E}fed", expected: "abc\\u202efed"),
    TextCase(id: "nul", text: "a\u{0}b", expected: "a\\u0000b"),
  ]

  @Test(arguments: cases) func controlCharactersBecomeVisible(_ example: TextCase) {
    #expect(TerminalText.sanitized(example.text) == example.expected)
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

  @Test func aPipeGetsViewsAndEchoesSanitizedToo() async throws {
    let scratch = try JournalScratch()
    try Self.evilCatalog.write(toFile: scratch.file("evil.json"), atomically: true, encoding: .utf8)
    let result = try await HostProcess.run(
      ["run", "kittens", "--config", "endpoint=file://\(scratch.file("evil.json"))"],
      input: "\u{1B}]0;typed\u{7}\n" + String(repeating: "y", count: 1000) + "\n")
    #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"))
    #expect(result.stdout.contains("  1. https://x/\\u001b]52;c;aGVsbG8=\\u0007.jpg"))
    #expect(result.stderr.contains("unknown action '\\u001b]0;typed\\u0007'"))
    #expect(result.stderr.contains("\(String(repeating: "y", count: 200))... (800 more bytes)'"))
    #expect(result.status == 0)
  }
}
