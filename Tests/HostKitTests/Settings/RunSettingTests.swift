import Foundation
import HostKit
import Testing

@testable import host

/// Each default of a run option is written once, in `RunSettingCatalogue`: the engine, the command
/// line and its help read it from there.
@Suite("Run settings")
struct RunSettingTests {
  /// The properties a setting's value lives under in `Sources/`, by option.
  static let homes: [(option: String, names: [String])] = [
    ("--max-feedback-steps", ["maxFeedbackSteps", "settleStepLimit"]),
    ("--settle-timeout", ["settleTimeout"]),
    ("--call-timeout", ["callTimeout"]),
    ("--max-line-bytes", ["maxLineBytes"]),
    ("--scan-timeout", ["scanTimeout"]),
  ]

  static let sources = ReadmeTests.root + "/Sources"

  /// Every Swift file under `Sources/` with its lines, but the catalogue itself.
  static func sourceLines() throws -> [(file: String, number: Int, text: String)] {
    let files = try FileManager.default.subpathsOfDirectory(atPath: sources)
      .filter { $0.hasSuffix(".swift") && !$0.hasSuffix("Settings/RunSetting.swift") }
    return try files.flatMap { file in
      try String(contentsOfFile: sources + "/" + file, encoding: .utf8).split(
        separator: "\n", omittingEmptySubsequences: false
      )
      .enumerated().map { (file, $0.offset + 1, String($0.element)) }
    }
  }

  @Test(arguments: homes.map(\.option))
  func aDefaultIsWrittenOnlyInTheCatalogue(option: String) throws {
    // given the names the setting goes by
    let names = try #require(Self.homes.first { $0.option == option }?.names)
    let alternatives = names.joined(separator: "|")
    // a default given as a literal: `maxFeedbackSteps: Int = 10_000`, `settleTimeout = .seconds(10)`
    let literal = try NSRegularExpression(
      pattern: #"\b(\#(alternatives))\b[^=\n(]*=\s*(\.seconds\()?\s*[0-9]"#)
    // when every source line is searched
    let found = try Self.sourceLines().filter { line in
      literal.firstMatch(in: line.text, range: NSRange(line.text.startIndex..., in: line.text)) != nil
    }
    // then none gives it one of its own
    #expect(found.isEmpty, "\(found.map { "\($0.file):\($0.number): \($0.text)" }.joined(separator: "\n"))")
  }

  @Test func theHelpSaysTheDefaultsTheEngineUses() {
    let help = CommandTable.Run.maxFeedbackSteps.help
    #expect(help.contains("(default \(Store.Options().maxFeedbackSteps))"))
    #expect(CommandTable.Run.settleTimeout.help.contains("(default \(Int(RunSettings().settleTimeout.seconds)),"))
    #expect(CommandTable.Run.maxLineBytes.help.contains("(default \(RunSettings().maxLineBytes):"))
  }

  @Test func theOptionsTakeTheCataloguesBounds() {
    #expect(CommandTable.Run.maxFeedbackSteps.kind == .count(minimum: 1))
    #expect(
      CommandTable.Isolation.callTimeout.kind
        == .seconds(minimum: 0, allowsMinimum: true, maximum: RunSettingCatalogue.longestWait))
    #expect(CommandTable.Global.scanTimeout.kind == .seconds(minimum: 0, allowsMinimum: false, maximum: 3600))
  }
}
