import FeatureTesting
import HostKit
import Testing

/// The plugins this package ships pass every check.
@Suite("host validate on the shipped plugins")
struct ShippedPluginTests {
  struct Shipped: CustomTestStringConvertible, Sendable {
    let id: String
    let library: String
    let arguments: [String]
    var testDescription: String { id }
  }

  static let catalog = "file://\(FixturePlugin.packageRoot)/Plugins/Kittens/catalog.json"

  static let shipped: [Shipped] = [
    Shipped(id: "counter", library: "Counter", arguments: []),
    Shipped(id: "levels", library: "Levels", arguments: []),
    Shipped(id: "kittens-from-a-file", library: "Kittens", arguments: ["--config", "endpoint=\(catalog)"]),
    // Its first load fails; it says so through loadFailed, which the plugin accepts.
    Shipped(
      id: "kittens-whose-load-fails", library: "Kittens", arguments: ["--config", "endpoint=file:///no/such/cats.json"]),
    Shipped(id: "thermostat-in-c", library: "CExample", arguments: []),
    // The menu offers what the host found; here two entries, as the host would pass them.
    Shipped(
      id: "home-menu", library: "Home",
      arguments: ["--config", #"{"entries":[{"id":"counter","name":"Counter"},{"id":"levels","name":"Levels"}]}"#]),
  ]

  @Test(arguments: shipped)
  func passesEveryCheck(_ plugin: Shipped) async throws {
    // The timeout is there for hangs; a debug build in a parallel test run is just slow.
    let report = try await ValidateReport.run(
      PluginPaths.library(plugin.library), plugin.arguments + ["--timeout", "60"])
    #expect(report.status == 0, "\(report.output.stdout)\(report.output.stderr)")
    #expect(report.passed == ValidateReport.allChecks)
    #expect(report.failures.isEmpty)
    #expect(report.summary == "\(ValidateReport.allChecks.count) passed, 0 failed")
    #expect(report.output.stderr == "")
  }

  @Test func theMenuWithoutEntriesFailsOnlyTheCatalogueAndSaysToGiveItAConfig() async throws {
    // given home validated as it loads alone, with no entries to pick from
    let report = try await ValidateReport.run(PluginPaths.library("Home"), ["--timeout", "60"])
    // then `pick` can never succeed, and the failure says what would make it
    #expect(report.status == 1)
    #expect(Array(report.failures.keys) == ["catalogue"], "\(report.output.stdout)")
    let why = report.failures["catalogue"] ?? ""
    #expect(why.contains("action 'pick' was refused with every sample"), "\(why)")
    #expect(why.contains("--config"), "\(why)")
  }

  @Test(arguments: shipped)
  func declaresABI1_1(_ plugin: Shipped) throws {
    #expect(try PluginLoader.load(PluginPaths.library(plugin.library)).abiMinor == 1)
  }
}
