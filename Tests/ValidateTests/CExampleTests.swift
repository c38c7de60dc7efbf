import FeatureTesting
import Testing

/// The thermostat, written in C against the header alone, built both ways.
@Suite("the C example plugin")
struct CExampleTests {
  /// The command README.md documents, run from the package root.
  static func buildByHand() throws -> String {
    let output = "\(try FixturePlugin.temporaryFolder())/libthermostat.so"
    try FixturePlugin.run(
      "sh",
      [
        "-c",
        "cc -shared -fPIC -O2 -I Sources/FeatureABI/include -Wl,--version-script=Plugins/CExample/exports.map "
          + "-o '\(output)' Plugins/CExample/*.c",
      ])
    return output
  }

  /// The names `nm -D --defined-only` lists: what the library exports.
  static func exportedSymbols(_ library: String) throws -> [String] {
    try FixturePlugin.run("nm", ["-D", "--defined-only", library])
      .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
  }

  @Test func theHandBuiltLibraryExportsOnlyTheEntry() throws {
    #expect(try Self.exportedSymbols(try Self.buildByHand()) == ["fh_plugin_entry_v1"])
  }

  /// Section-boundary markers the linker SwiftPM drives adds to the dynamic symbol table when no
  /// version script hides them; they are not plugin code.
  static let linkerMarkers: Set<String> = ["__bss_start", "_edata", "_end"]

  @Test func theSwiftPMProductExportsOnlyTheEntry() throws {
    // No version script here: every function but the entry is static or hidden instead.
    let exported = try Self.exportedSymbols(PluginPaths.library("CExample"))
    #expect(exported.filter { !Self.linkerMarkers.contains($0) } == ["fh_plugin_entry_v1"])
  }

  @Test func theHandBuiltLibraryPassesValidate() async throws {
    let report = try await ValidateReport.run(try Self.buildByHand(), ["--timeout", "60"])
    #expect(report.status == 0, "\(report.output.stdout)")
    #expect(report.summary == "\(ValidateReport.allChecks.count) passed, 0 failed")
  }

  @Test func runsInAPipeThroughTheHost() async throws {
    let result = try await HostProcess.run(
      ["run", "thermostat"], input: "setTarget celsius=22\nsetMode mode=heat\nwarmer\n:state\n")
    #expect(result.stderr == "")
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        {"mode":"heat","target":23}
        Thermostat — heating to 23 °C
          mode:   heat
          target: 23 °C

        """)
  }

  @Test func aRefusedActionIsReportedAndTheStateKept() async throws {
    let result = try await HostProcess.run(
      ["run", "thermostat"], input: "setMode mode=warm\nsetTarget celsius=99\ncooler\n:state\n")
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("{\"mode\":\"off\",\"target\":19}\n"))
    #expect(result.stderr.contains("thermostat: 'setMode' needs mode=off, heat or cool, got \"warm\""))
    #expect(result.stderr.contains("thermostat: 'setTarget' needs celsius=<integer> from 5 to 35"))
  }

  @Test func aConfigSetsTheStartingTarget() async throws {
    let result = try await HostProcess.run(["run", "thermostat", "--config", "target=30"], input: ":state\n")
    #expect(result.stdout.hasPrefix("{\"mode\":\"off\",\"target\":30}\n"))
    let refused = try await HostProcess.run(["run", "thermostat", "--config", "target=99"])
    #expect(refused.status == 1)
    #expect(refused.stderr.contains("thermostat: config target must be an integer from 5 to 35"))
  }
}
