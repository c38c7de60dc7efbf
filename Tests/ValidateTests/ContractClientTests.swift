import FeatureTesting
import HostKit
import Testing

/// A second client of the ABI: Tests/ContractC/contract_client.c, written in C against
/// feature_abi.h alone, drives each shipped plugin and checks the header's rules one by one. No
/// host code is involved, so the contract is tested from outside the host.
@Suite("the C contract client on every shipped plugin")
struct ContractClientTests {
  struct Shipped: CustomTestStringConvertible, Sendable {
    let library: String
    let config: String
    var testDescription: String { library }
  }

  static let shipped: [Shipped] = [
    Shipped(library: "Counter", config: "{}"),
    Shipped(library: "Levels", config: "{}"),
    Shipped(
      library: "Kittens", config: #"{"endpoint":"file://\#(FixturePlugin.packageRoot)/Plugins/Kittens/catalog.json"}"#),
    Shipped(library: "CExample", config: "{}"),
    Shipped(library: "Home", config: #"{"entries":[{"id":"counter","name":"Counter"}]}"#),
  ]

  /// The rules the client checks, one line each.
  static let ruleCount = 38

  private static let client = BuiltPaths()

  /// The client, compiled once per test process.
  static func clientPath() throws -> String {
    if let path = client.path(for: "client") { return path }
    let root = FixturePlugin.packageRoot
    let path = "\(try FixturePlugin.temporaryFolder())/contract_client"
    // Built like the plugins it loads: under TSan, the Swift ones call into its runtime.
    try FixturePlugin.run(
      FixturePlugin.compiler,
      [
        "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-I", "\(root)/Sources/FeatureABI/include", "-o", path,
        "\(root)/Tests/ContractC/contract_client.c", "-ldl", "-lpthread",
      ] + FixturePlugin.sanitizerFlags(forExecutable: true))
    client.record(path, for: "client")
    return path
  }

  static func run(_ plugin: String, config: String) throws -> (status: Int32, lines: [String]) {
    let process = ChildProcess(try clientPath(), arguments: [plugin, config])
    let result = try process.run(timeout: .seconds(120))
    guard case .exited(let status) = result.termination else {
      Issue.record("the client ended with \(result.termination): \(result.errorText)")
      return (-1, [])
    }
    return (status, result.outputText.split(separator: "\n").map(String.init))
  }

  @Test(arguments: shipped)
  func keepsEveryRule(_ plugin: Shipped) throws {
    let result = try Self.run(PluginPaths.library(plugin.library), config: plugin.config)
    #expect(result.lines.filter { $0.hasPrefix("not ok") } == [])
    #expect(result.lines.filter { $0.hasPrefix("ok ") }.count == Self.ruleCount)
    #expect(result.lines.last == "1..\(Self.ruleCount)")
    #expect(result.status == 0)
  }

  @Test func aPluginThatIgnoresTheLifecycleOrderBreaksThoseRulesAlone() throws {
    let result = try Self.run(try FixturePlugin.tally("CONTRACT_BREAK_EARLY_ACTION"), config: "{}")
    let broken = result.lines.filter { $0.hasPrefix("not ok") }.map { $0.split(separator: " - ").last ?? "" }
    #expect(
      broken.map { $0.prefix { $0 != ":" } } == [
        "a catalogued action before the lifecycle action is refused", "a second created is refused",
        "restored after created is refused",
      ])
    #expect(broken.first?.contains("status 1 (want 4)") == true)
    #expect(result.status == 1)
  }
}
