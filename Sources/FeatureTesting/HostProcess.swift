import HostKit

/// Runs the built `host` executable, as a person at a terminal would (but with a pipe for stdin),
/// and returns what it printed: the CLI tier of the tests.
public struct HostProcess {
  public struct Output: Sendable {
    public var stdout: String
    public var stderr: String
    public var status: Int32
  }

  /// The `host` built beside the test executable.
  public static var executable: String { "\(PluginPaths.buildFolder)/host" }

  /// The test's own environment less the variables the host and the shipped features read (so
  /// only what a test names is used), with NO_COLOR set, plus `environment`.
  public static func environment(adding environment: [String: String] = [:]) -> [String: String] {
    var result = ChildProcess.currentEnvironment
    for name in ["FEATUREHOST_PLUGIN_PATH", "KITTENS_ENDPOINT", "LEVELS_INTERVAL"] { result[name] = nil }
    result["NO_COLOR"] = "1"
    result.merge(environment) { _, new in new }
    return result
  }

  /// Runs `host arguments...` with `input` on stdin, in `environment(adding: environment)`.
  /// A host that has not exited after `timeout` is killed; its status is then 137 (128 + SIGKILL).
  public static func run(
    _ arguments: [String], input: String = "", environment: [String: String] = [:], timeout: Duration = .seconds(600)
  ) throws -> Output {
    var process = ChildProcess(executable, arguments: arguments, environment: Self.environment(adding: environment))
    process.standardInput = .bytes(Array(input.utf8))
    let result = try process.run(timeout: timeout)
    return Output(stdout: result.outputText, stderr: result.errorText, status: result.termination.shellStatus)
  }

  /// `run`, waited for on a thread of its own: a test that waits seconds on a host (call
  /// timeouts, an exploration shrinking a hang) leaves the threads of Swift's cooperative pool,
  /// one per core, to the tests running beside it.
  public static func run(
    _ arguments: [String], input: String = "", environment: [String: String] = [:], timeout: Duration = .seconds(600)
  ) async throws -> Output {
    try await offPool { try run(arguments, input: input, environment: environment, timeout: timeout) }
  }
}
