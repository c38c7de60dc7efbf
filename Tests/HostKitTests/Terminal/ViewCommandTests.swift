import FeatureTesting
import Foundation
import HostKit
import Testing

/// `:view` draws the whole view where a plugin offers `fh.render_options/1` (kittens: every URL),
/// and the plain view where it does not; kittens' live view is a window on the latest URLs.
@Suite struct ViewCommandTests {
  /// The catalog shipped with kittens: 42 URLs.
  private static let catalog =
    "file://"
    + URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path + "/Plugins/Kittens/catalog.json"

  @Test(arguments: ["process", "none"]) func viewListsEveryURLWhileTheViewShowsTheLatestTwenty(isolation: String)
    async throws
  {
    let result = try await HostProcess.run(
      ["run", "kittens", "--isolation", isolation, "--config", "endpoint=\(Self.catalog)"],
      input: ":settle\nloadMore\n:settle\nloadMore\n:settle\n:view\n")
    #expect(result.status == 0, "\(result.stderr)")
    // ':view', then the final view at the end of input.
    let parts = result.stdout.components(separatedBy: "Kittens — 30 images\n")
    try #require(parts.count == 3, "\(result.stdout)")
    let whole = parts[1].split(separator: "\n")
    #expect(whole.filter { $0.contains(". https://") }.count == 30)
    #expect(whole.first == "  1. https://cdn2.thecatapi.com/images/AGD.jpg")
    #expect(!parts[1].contains("earlier"))
    let window = parts[2].split(separator: "\n")
    #expect(window.first == "... 10 earlier (':view' lists every URL)")
    #expect(window.filter { $0.contains(". https://") }.count == 20)
    #expect(window[1].hasPrefix(" 11. "))
  }

  @Test func aPluginWithoutTheExtensionGetsItsPlainViewFromView() async throws {
    let folder = try FixturePlugin.temporaryFolder()
    try FixturePlugin.build([], into: "\(folder)/libfixture.so")
    let result = try await HostProcess.run(
      ["run", "fixture", "--isolation", "none"], input: "tick tag=T\n:view\n",
      environment: ["FEATUREHOST_PLUGIN_PATH": folder])
    #expect(result.status == 0, "\(result.stderr)")
    // ':view' and the final view are the same text.
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let half = (lines.count - 1) / 2
    #expect(half > 0 && Array(lines[0..<half]) == Array(lines[half..<(2 * half)]), "\(result.stdout)")
  }

  @Test func anUnreachableServerSuggestsTheCatalogFile() async throws {
    // Nothing listens on the discard port of the loopback address: the connection is refused.
    let result = try await HostProcess.run(
      ["run", "kittens", "--config", "endpoint=http://127.0.0.1:9/", "--config", "timeout=5"], input: ":settle\n")
    #expect(result.stdout.contains("error: cannot connect to http://127.0.0.1:9/"), "\(result.stdout)")
    #expect(
      result.stdout.contains(
        "offline? a catalog file works without a network: --config endpoint=file://$PWD/Plugins/Kittens/catalog.json"))
  }
}
