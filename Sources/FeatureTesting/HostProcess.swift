import Foundation

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

  /// Runs `host arguments...` with `input` on stdin. The environment is the test's own, less the
  /// variables the host and the shipped features read (so only what a test names is used), with
  /// NO_COLOR set, plus `environment`.
  public static func run(
    _ arguments: [String], input: String = "", environment: [String: String] = [:]
  ) throws -> Output {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for name in ["FEATUREHOST_PLUGIN_PATH", "KITTENS_ENDPOINT", "LEVELS_INTERVAL"] { env[name] = nil }
    env["NO_COLOR"] = "1"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    // Read both pipes to the end before waiting, so a full pipe never blocks the host.
    let group = DispatchGroup()
    nonisolated(unsafe) var errors = Data()
    group.enter()
    DispatchQueue.global().async {
      errors = stderr.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Output(
      stdout: String(decoding: output, as: UTF8.self), stderr: String(decoding: errors, as: UTF8.self),
      status: process.terminationStatus)
  }
}
