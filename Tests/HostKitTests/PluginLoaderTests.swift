import Foundation
import HostKit
import Testing

@Suite("Plugin loader")
struct PluginLoaderTests {
  struct BadPlugin: CustomTestStringConvertible, Sendable {
    let id: String
    let defines: [String]
    let reason: PluginLoadError.Reason
    let mentions: String
    var testDescription: String { id }
  }

  static let badPlugins: [BadPlugin] = [
    BadPlugin(
      id: "no-entry-symbol", defines: ["FIXTURE_NO_ENTRY"], reason: .noEntrySymbol, mentions: "fh_plugin_entry_v1"),
    BadPlugin(
      id: "entry-returns-null", defines: ["FIXTURE_ENTRY_NULL"], reason: .entryReturnedNull, mentions: "returned NULL"),
    BadPlugin(id: "wrong-major", defines: ["FIXTURE_WRONG_MAJOR"], reason: .wrongMajor, mentions: "ABI 2.0"),
    BadPlugin(id: "newer-minor", defines: ["FIXTURE_NEWER_MINOR"], reason: .newerMinor, mentions: "needs ABI 1.7"),
    BadPlugin(id: "struct-too-small", defines: ["FIXTURE_SMALL_STRUCT"], reason: .structTooSmall, mentions: "24 bytes"),
    BadPlugin(
      id: "missing-function", defines: ["FIXTURE_MISSING_DISPATCH"], reason: .missingFunction, mentions: "'dispatch'"),
    BadPlugin(
      id: "manifest-not-json", defines: ["FIXTURE_BAD_MANIFEST"], reason: .badManifest, mentions: "not valid JSON"),
    BadPlugin(
      id: "manifest-missing-field", defines: ["FIXTURE_MANIFEST_NO_NAME"], reason: .badManifest, mentions: "no name"),
  ]

  @Test("a broken plugin is refused with an error naming the file", arguments: badPlugins)
  func brokenPluginIsRefused(_ bad: BadPlugin) throws {
    let path = try FixtureBuilder.plugin(bad.defines)
    #expect {
      _ = try PluginLoader.load(path)
    } throws: { error in
      guard let error = error as? PluginLoadError else { return false }
      return error.reason == bad.reason && error.message.contains(path) && error.message.contains(bad.mentions)
        && error.help != nil
    }
  }

  @Test func aFileThatIsNotASharedLibraryIsRefused() throws {
    let folder = try FixtureBuilder.temporaryFolder()
    let path = "\(folder)/libnotes.so"
    try "just text\n".write(toFile: path, atomically: true, encoding: .utf8)
    let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path) }
    #expect(error?.reason == .notSharedLibrary)
    #expect(error?.message.contains(path) == true)
  }

  @Test func aGoodFixtureLoadsWithItsManifest() throws {
    let plugin = try PluginLoader.load(try FixtureBuilder.plugin())
    #expect(plugin.id == "fixture")
    #expect(plugin.manifest.actions.map(\.type) == ["tick", "burst", "ping", "step"])
    #expect(plugin.manifest.steps.map(\.step) == ["go"])
    #expect(plugin.abiMajor == 1)
    #expect(plugin.abiMinor == 0)
  }

  @Test func theCounterPluginLoads() throws {
    let plugin = try PluginLoader.load(CounterLibrary.path)
    #expect(plugin.id == "counter")
    #expect(plugin.manifest.actions.map(\.type) == ["increment", "decrement"])
  }
}
