import FeatureTesting
import Foundation
import HostKit
import Testing

@Suite("Plugin discovery")
struct PluginDiscoveryTests {
  /// The catalogue of `folder`, scanned in this process without a cache.
  static func catalogue(of folder: String) -> PluginCatalogue {
    PluginRegistry(directories: [folder], cache: nil, hostVersion: "test") { PluginScan.inProcess($0) }.catalogue()
  }

  @Test func searchOrderIsExplicitThenEnvironmentThenBuildFolder() {
    let directories = PluginDiscovery.searchDirectories(
      explicit: ["/a", "/b"], environment: ["FEATUREHOST_PLUGIN_PATH": "/c::/d"], buildFolder: "/e")
    #expect(directories == ["/a", "/b", "/c", "/d", "/e"])
  }

  @Test func theCurrentDirectoryIsNeverSearchedImplicitly() {
    let directories = PluginDiscovery.searchDirectories(explicit: [], environment: [:], buildFolder: nil)
    #expect(directories.isEmpty)
  }

  @Test func aFolderWritableByOthersIsRefused() throws {
    let folder = try FixturePlugin.temporaryFolder()
    try FixturePlugin.build([], into: "\(folder)/libfixture.so")
    chmod(folder, 0o777)
    let result = Self.catalogue(of: folder)
    #expect(result.plugins.isEmpty)
    #expect(result.rejections.count == 1)
    #expect(result.rejections.first?.reason.contains("writable by group or others") == true)
    #expect(result.rejections.first?.help?.contains("chmod go-w \(folder)") == true)
  }

  @Test func aPluginFileWritableByGroupIsRefused() throws {
    let folder = try FixturePlugin.temporaryFolder()
    let file = "\(folder)/libfixture.so"
    try FixturePlugin.build([], into: file)
    chmod(file, 0o775)
    let result = Self.catalogue(of: folder)
    #expect(result.plugins.isEmpty)
    #expect(result.rejections.map(\.path) == [file])
    #expect(result.rejections.first?.reason.contains("mode 775") == true)
  }

  @Test func aDuplicateFeatureIdIsRejectedAndTheFirstWins() throws {
    let folder = try FixturePlugin.temporaryFolder()
    try FixturePlugin.build([], into: "\(folder)/liba.so")
    try FixturePlugin.build([], into: "\(folder)/libb.so")
    let result = Self.catalogue(of: folder)
    #expect(result.plugins.map(\.path) == ["\(folder)/liba.so"])
    #expect(result.rejections.map(\.path) == ["\(folder)/libb.so"])
    #expect(result.rejections.first?.reason.contains("duplicate feature id 'fixture'") == true)
  }

  @Test func brokenCandidatesAreListedWithTheirReasonBesideGoodOnes() throws {
    let folder = try FixturePlugin.temporaryFolder()
    try FixturePlugin.build([], into: "\(folder)/libgood.so")
    try FixturePlugin.build(["FIXTURE_WRONG_MAJOR", "FIXTURE_ID=\"other\""], into: "\(folder)/libold.so")
    let result = Self.catalogue(of: folder)
    #expect(result.ids == ["fixture"])
    #expect(result.rejections.map(\.path) == ["\(folder)/libold.so"])
  }
}

/// The counter plugin built by this package, beside the test executable.
enum CounterLibrary {
  static var path: String { PluginPaths.library("Counter") }
}
