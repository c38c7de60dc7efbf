import FeatureTesting
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
  static func counterNumber() throws -> Int {
    let menu = try HostProcess.run([], input: "")
    let line = try #require(menu.stdout.split(separator: "\n").first { $0.contains(". counter") })
    return try #require(Int(line.trimmingPrefix(while: \.isWhitespace).prefix { $0.isNumber }))
  }

  @Test func everyWayOfPickingOpensTheCounterInTheMainFlow() throws {
    let number = try Self.counterNumber()
    for typed in ["\(number)", "counter", "pick \(number)", "pick counter"] {
      let result = try HostProcess.run([], input: "\(typed)\nincrement\n")
      #expect(result.stderr == "", "after '\(typed)'")
      #expect(result.stdout.hasSuffix("Counter\n  count:  1\n  clicks: 1\n"), "after '\(typed)'")
    }
  }

  @Test func picksOpenTheFeatureUnderRunHomeAndOpenHome() throws {
    let alone = try HostProcess.run(["run", "home"], input: "counter\nincrement\n")
    #expect(alone.stderr == "")
    #expect(alone.stdout.hasSuffix("Counter\n  count:  1\n  clicks: 1\n"))

    let opened = try HostProcess.run(["run", "levels"], input: ":open home\npick counter\nincrement\n")
    #expect(opened.stderr == "")
    #expect(opened.stdout.hasSuffix("Counter\n  count:  1\n  clicks: 1\n"))
  }
}
