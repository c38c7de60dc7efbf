import FeatureTesting

/// A fresh state folder (`XDG_STATE_HOME`) for the host runs of one test: sessions never leak
/// between tests or into the user's home.
struct StateFolder {
  let path: String

  init() throws { path = try FixturePlugin.temporaryFolder() }

  /// The folder the host keeps its sessions in.
  var sessions: String { "\(path)/featurehost" }

  /// The journal of the session `name`.
  func journal(_ name: String) -> String { "\(sessions)/\(name).jsonl" }

  /// Runs the built host with `arguments`, `input` on its stdin, keeping its sessions here.
  func host(_ arguments: [String], _ input: String = "") async throws -> HostProcess.Output {
    try await HostProcess.run(arguments, input: input, environment: ["XDG_STATE_HOME": path])
  }
}
