import FeatureTesting
import Foundation
import HostKit
import Testing

/// Output fitted to the terminal's width: views, `:help` and levels' bars at a narrow
/// pseudo-terminal, and a pipe that gets the lines unchanged.
@Suite(.serialized) struct TerminalWidthTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let id: String
    let text: String
    let columns: Int
    let wrapped: String
    var testDescription: String { id }
  }

  static let cases: [Case] = [
    Case(id: "narrow-enough", text: "count: 3", columns: 8, wrapped: "count: 3"),
    Case(id: "at-spaces", text: "aaa bbb ccc", columns: 7, wrapped: "aaa bbb\nccc"),
    Case(id: "long-word", text: "abcdefghij", columns: 4, wrapped: "abcd\nefgh\nij"),
    Case(id: "each-line", text: "abcdef\nab", columns: 3, wrapped: "abc\ndef\nab"),
    Case(id: "visible-escape-whole", text: "ab\\u001bcd", columns: 4, wrapped: "ab\n\\u001b\ncd"),
    Case(id: "wide-characters", text: "日本語テキスト", columns: 6, wrapped: "日本語\nテキス\nト"),
    Case(id: "combining-mark", text: "e\u{301}e\u{301}e\u{301}", columns: 3, wrapped: "e\u{301}e\u{301}e\u{301}"),
    Case(id: "styling-takes-no-room", text: "\u{1B}[1mabcd\u{1B}[0m", columns: 4, wrapped: "\u{1B}[1mabcd\u{1B}[0m"),
  ]

  @Test(arguments: cases) func linesWrapOnCellsNeverInsideAnEscape(_ item: Case) {
    #expect(TerminalWrap.wrapped(item.text, columns: item.columns) == item.wrapped)
  }

  /// A catalog whose one URL is much wider than the terminal.
  static let url = "https://example.org/" + String(repeating: "a", count: 60) + ".jpg"

  private func catalog(in scratch: JournalScratch) throws -> String {
    let path = scratch.file("long.json")
    try "[{\"id\": \"a\", \"url\": \"\(Self.url)\", \"width\": 1, \"height\": 1}]"
      .write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// `text` as the terminal shows it: no carriage returns, no styling.
  private func shown(_ text: String) -> [String] {
    text.replacingOccurrences(of: "\r", with: "")
      .replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[@-~]", with: "", options: .regularExpression)
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  @Test func aThirtyColumnTerminalWrapsAViewLineAndHelpAndAPipeDoesNot() async throws {
    let scratch = try JournalScratch()
    let catalog = try catalog(in: scratch)
    let host = try PseudoTerminal(
      ["run", "kittens", "--config", "endpoint=file://\(catalog)"],
      environment: ["XDG_STATE_HOME": scratch.file("state")], columns: 30)
    let view = try host.waitFor("end of the catalog")
    let url = Array(Self.url)
    let rows = shown(view)
    // The line "  1. URL" breaks after "1." and then every 30 cells.
    #expect(rows.contains(String(url[0..<30])) && rows.contains(String(url[30..<60])), "\(rows)")
    #expect(!view.contains(Self.url))
    try host.waitFor("kittens> ")
    host.type(":help\r")
    let help = shown(try host.waitFor("kittens> "))
    #expect(help.contains { $0.contains(":quit") })
    let wide = help.filter { $0.unicodeScalars.count > 30 }
    #expect(wide.isEmpty, "wider than the terminal: \(wide)")
    #expect(try host.quit() == 0)

    let piped = try await HostProcess.run(
      ["run", "kittens", "--config", "endpoint=file://\(catalog)"], input: ":help\n")
    #expect(piped.stdout.contains("  1. \(Self.url)\n"))
    #expect(piped.stdout.split(separator: "\n").contains { $0.count > 30 })
  }

  @Test func levelsBarsFitANarrowTerminalAndKeepTheirScale() throws {
    let scratch = try JournalScratch()
    let host = try PseudoTerminal(
      ["run", "levels", "--config", "interval=0"],
      environment: ["XDG_STATE_HOME": scratch.file("state")], columns: 30)
    let view = shown(try host.waitFor("settled at 15") + host.waitFor("levels> "))
    #expect(try host.quit() == 0)
    // A full bar of 20 is 30 - "  right " - "15 " = 19 cells: 15 is drawn as 14.
    let left = view.last { $0.hasPrefix("  left  15 ") }
    #expect(left == "  left  15 " + String(repeating: "█", count: 14), "\(view)")
    #expect(view.allSatisfy { $0.unicodeScalars.count <= 30 }, "\(view)")
  }
}
