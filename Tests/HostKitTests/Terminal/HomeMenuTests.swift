import FeatureTesting
import Foundation
import Testing

@testable import host

@Suite struct HomeMenuTests {
  @Test(arguments: [
    ("1", "pick entry=1"), ("counter", "pick entry=counter"), ("pick 2", "pick entry=2"),
    ("pick counter", "pick entry=counter"), ("pick entry=3", "pick entry=3"), ("pick", "pick"),
    (":back", ":back"), ("{\"type\":\"pick\",\"entry\":\"1\"}", "{\"type\":\"pick\",\"entry\":\"1\"}"),
    ("pick a b", "pick a b"),
  ])
  func aNumberOrAnIdAloneOrAfterPickIsAPick(typed: String, action: String) {
    #expect(HomeMenu.action(for: typed) == action)
  }

  /// The number of counter in the menu, as the menu lists it.
  static func counterNumber() async throws -> Int {
    let menu = try await HostProcess.run([], input: "")
    let line = try #require(menu.stdout.split(separator: "\n").first { $0.contains(". counter") })
    return try #require(Int(line.trimmingPrefix(while: \.isWhitespace).prefix { $0.isNumber }))
  }

  @Test func everyWayOfPickingOpensTheCounterInTheMainFlow() async throws {
    let number = try await Self.counterNumber()
    for typed in ["\(number)", "counter", "pick \(number)", "pick counter"] {
      let result = try await HostProcess.run([], input: "\(typed)\nincrement\n")
      #expect(result.stderr == "", "after '\(typed)'")
      #expect(result.stdout.hasSuffix("Counter\n  count:  1\n  clicks: 1\n"), "after '\(typed)'")
    }
  }

  @Test func picksOpenTheFeatureUnderRunHomeAndOpenHome() async throws {
    let alone = try await HostProcess.run(["run", "home"], input: "counter\nincrement\n")
    #expect(alone.stderr == "")
    #expect(alone.stdout.hasSuffix("Counter\n  count:  1\n  clicks: 1\n"))

    let opened = try await HostProcess.run(["run", "levels"], input: ":open home\npick counter\nincrement\n")
    #expect(opened.stderr == "")
    #expect(opened.stdout.hasSuffix("Counter\n  count:  1\n  clicks: 1\n"))
  }

  /// The ids the menu lists, in its order.
  static func menuIDs(_ text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
      let words = line.split(separator: " ")
      guard words.count >= 2, words[0].hasSuffix("."), Int(words[0].dropLast()) != nil else { return nil }
      return String(words[1])
    }
  }

  @Test func theShippedFeaturesComeFirstThenTheOthersById() async throws {
    // given a plugin folder searched first, with a feature whose id sorts before them all
    let folder = try FixturePlugin.temporaryFolder()
    try FixturePlugin.build(["FIXTURE_ID=\"alpha\""], into: "\(folder)/libalpha.so")
    // when the menu lists what was found
    let menu = try await HostProcess.run(["--plugins", folder], input: "")
    // then counter, kittens and levels come first, in that order, and the others by id
    let ids = Self.menuIDs(menu.stdout)
    #expect(Array(ids.prefix(3)) == ["counter", "kittens", "levels"], "\(menu.stdout)")
    #expect(Array(ids.dropFirst(3)) == ids.dropFirst(3).sorted())
    #expect(ids.contains("alpha") && ids.contains("thermostat"))
  }

  @Test(.enabled(if: TmuxScreen.isAvailable))
  func aLongDescriptionWrapsUnderItsOwnTextAtATerminal() throws {
    let scratch = try JournalScratch()
    let host = try TmuxScreen([], environment: ["XDG_STATE_HOME": scratch.file("state")], columns: 60)
    let screen = try host.waitForLastLine("home>")
    // "  2. kittens     " then the description; its next lines start under the description.
    let index = try #require(screen.firstIndex { $0.hasPrefix("  2. kittens     Kittens: ") }, "\(screen)")
    let head = "  2. kittens     ".count
    let next = screen[index + 1]
    #expect(
      next.prefix(head).allSatisfy { $0 == " " } && next.count > head && next.dropFirst(head).first != " ",
      "\(screen.joined(separator: "\n"))")
    #expect(screen.allSatisfy { $0.count <= 60 })
    #expect(screen.filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.count >= 4)
    try host.type(":quit\r")
    #expect(try host.waitForExit() == 0)
  }
}
