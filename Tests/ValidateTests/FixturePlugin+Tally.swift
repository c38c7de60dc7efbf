import FeatureTesting

extension FixturePlugin {
  /// The "tally" feature of the fixture, wrapped by Tests/Fixtures/contract/contract_plugin.c so it
  /// keeps every rule feature_abi.h decides, built with `defines` (BREAK_*, FIXTURE_* or
  /// CONTRACT_* macros; none for the well-behaved build).
  static func tally(_ defines: String?...) throws -> String {
    let given = defines.compactMap { $0 }
    let key = given.isEmpty ? "plain" : given.joined(separator: "-")
    return try ContractFixture.path(given, name: "libtally-\(key.lowercased())")
  }
}

/// Builds the wrapped tally with `cc -shared`, once per variant and test process.
enum ContractFixture {
  static let source = "\(FixturePlugin.packageRoot)/Tests/Fixtures/contract/contract_plugin.c"

  private static let built = BuiltPaths()

  static func path(_ defines: [String], name: String) throws -> String {
    if let path = built.path(for: name) { return path }
    let file = "\(try FixturePlugin.temporaryFolder())/\(name).so"
    let root = FixturePlugin.packageRoot
    try FixturePlugin.run(
      FixturePlugin.compiler,
      [
        "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-Wno-unused", "-I", "\(root)/Sources/FeatureABI/include",
        "-I", "\(root)/Plugins/CExample", "-I", "\(root)/Tests/Fixtures", "-DFIXTURE_TALLY",
      ] + FixturePlugin.sanitizerFlags + defines.map { "-D\($0)" } + [
        "-o", file, source, "\(root)/Plugins/CExample/flat_json.c", "-lpthread",
      ])
    built.record(file, for: name)
    return file
  }
}
