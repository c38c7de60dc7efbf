import FeatureABI
import FeatureTesting
import Foundation
import Testing

@testable import HostKit

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
    BadPlugin(id: "wrong-major", defines: ["FIXTURE_WRONG_MAJOR"], reason: .wrongMajor, mentions: "ABI 2.1"),
    BadPlugin(id: "newer-minor", defines: ["FIXTURE_NEWER_MINOR"], reason: .newerMinor, mentions: "needs ABI 1.8"),
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
    let path = try FixturePlugin.path(bad.defines)
    #expect {
      _ = try PluginLoader.load(path)
    } throws: { error in
      guard let error = error as? PluginLoadError else { return false }
      return error.reason == bad.reason && error.message.contains(path) && error.message.contains(bad.mentions)
        && error.help != nil
    }
  }

  @Test func aFileThatIsNotASharedLibraryIsRefused() throws {
    let folder = try FixturePlugin.temporaryFolder()
    let path = "\(folder)/libnotes.so"
    try "just text\n".write(toFile: path, atomically: true, encoding: .utf8)
    let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path) }
    #expect(error?.reason == .notSharedLibrary)
    #expect(error?.message.contains(path) == true)
  }

  @Test func aGoodFixtureLoadsWithItsManifest() throws {
    let plugin = try PluginLoader.load(try FixturePlugin.path())
    #expect(plugin.id == "fixture")
    #expect(plugin.manifest.actions.map(\.type) == ["tick", "burst", "ping", "later", "step"])
    #expect(plugin.manifest.steps.map(\.step) == ["go"])
    #expect(plugin.abiMajor == 1)
    #expect(plugin.abiMinor == 1)
  }

  // The size rule of feature_abi.h: a descriptor is read within its struct_size.

  static let pointer = MemoryLayout<UnsafeRawPointer>.size

  static func offset(_ field: PartialKeyPath<fh_plugin>) -> Int { MemoryLayout<fh_plugin>.offset(of: field) ?? -1 }

  @Test func aDescriptorOfThisHostsSizeLoadsWithEveryField() throws {
    let plugin = try PluginLoader.load(try FixturePlugin.path())
    #expect(plugin.structSize == UInt32(MemoryLayout<fh_plugin>.size))
    #expect(plugin.functions.get_extension != nil)
  }

  @Test func aShorterDescriptorLoadsAndTheFieldsItDoesNotReachAreAbsent() throws {
    // given a descriptor whose struct_size ends before get_extension (set in memory beyond it)
    let path = try FixturePlugin.path(["FIXTURE_STRUCT_END=get_extension"], name: "libshorter")
    // when it is loaded
    let plugin = try PluginLoader.load(path)
    // then it is used, and the optional field past its size is absent, not read
    #expect(plugin.structSize == UInt32(Self.offset(\.get_extension)))
    #expect(plugin.functions.get_extension == nil)
    #expect(plugin.id == "fixture")
  }

  @Test func aLongerDescriptorOfThisMinorLoadsAndItsUnknownTailIsIgnored() throws {
    let path = try FixturePlugin.path(["FIXTURE_LONGER_STRUCT"], name: "liblonger")
    let plugin = try PluginLoader.load(path)
    #expect(plugin.structSize == UInt32(MemoryLayout<fh_plugin>.size + 4 * Self.pointer))
    #expect(plugin.abiMinor == FH_ABI_MINOR)
    // and it runs: the fields this host knows were all read
    let store = try Store(plugin: plugin, config: #"{"tag":"L"}"#, observer: { _ in })
    try store.start()
    store.send(#"{"type":"tick","tag":"L"}"#, source: .user)
    #expect(store.waitUntilSettled(timeout: .seconds(10)) == .settled)
    #expect(try store.state().hasPrefix(#"{"count":1,"#))
    _ = store.stop()
  }

  @Test func aLongerDescriptorOfANewerMinorIsRefused() throws {
    let path = try FixturePlugin.path(["FIXTURE_LONGER_STRUCT", "FIXTURE_NEWER_MINOR"], name: "liblonger-newer")
    let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path) }
    #expect(error?.reason == .newerMinor)
    #expect(error?.message.contains("needs ABI \(FH_ABI_MAJOR).\(FH_ABI_MINOR + 7)") == true)
  }

  /// The required fields a descriptor's struct_size may end before.
  static let requiredFields = ["create", "render", "last_error"]

  @Test("a descriptor ending before a required field is refused, naming it", arguments: requiredFields)
  func aDescriptorEndingBeforeARequiredFieldIsRefused(_ field: String) throws {
    let path = try FixturePlugin.path(["FIXTURE_STRUCT_END=\(field)"], name: "libcut-\(field)")
    let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path) }
    #expect(error?.reason == .structTooSmall)
    #expect(error?.message.contains("'\(path)'") == true)
    #expect(error?.message.contains("bytes and ends before '\(field)', a required field") == true)
    #expect(error?.help != nil)
  }

  @Test func theSizeInTheRefusalIsTheDeclaredOne() throws {
    let path = try FixturePlugin.path(["FIXTURE_STRUCT_END=render"], name: "libcut-render")
    let error = #expect(throws: PluginLoadError.self) { try PluginLoader.load(path) }
    #expect(error?.message.contains("is \(Self.offset(\.render)) bytes") == true)
  }

  @Test func theCounterPluginLoads() throws {
    let plugin = try PluginLoader.load(CounterLibrary.path)
    #expect(plugin.id == "counter")
    #expect(plugin.manifest.actions.map(\.type) == ["increment", "decrement"])
  }
}
