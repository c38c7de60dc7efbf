import FeatureJSON
import Foundation
import HostKit

/// Builds the C fixture plugin of the tests (Tests/Fixtures/fixture_plugin.c) with `cc -shared`,
/// once per variant and test process, into a private temporary folder.
///
/// A variant is a list of macros (`["FIXTURE_WRONG_MAJOR"]`, `["FIXTURE_TALLY", "BREAK_NO_ENTRY"]`);
/// the source's opening comment lists them. Every child process the builder starts goes through
/// `run`, the one place to change how tools are spawned.
public enum FixturePlugin {
  /// The package's root folder, found from this source file's path.
  public static let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  static let source = "\(packageRoot)/Tests/Fixtures/fixture_plugin.c"
  static let includeDirectory = "\(packageRoot)/Sources/FeatureABI/include"
  /// The C example's JSON reader, which the "tally" feature uses.
  static let exampleDirectory = "\(packageRoot)/Plugins/CExample"

  // Locked, not Mutex: tests build and make folders side by side, and ThreadSanitizer sees a
  // pthread mutex change hands (see Locked).
  private static let built = Locked<[String: String]>([:])

  /// A fresh folder (mode 0700) for one test, `PREFIX-XXXXXX` in `parent` (the temporary
  /// folder), removed with what it holds when the test process exits.
  public static func temporaryFolder(
    in parent: String = NSTemporaryDirectory(), prefix: String = "featurehost-test"
  ) throws -> String {
    let base = parent.hasSuffix("/") ? parent : parent + "/"
    var template = Array((base + prefix + "-XXXXXX").utf8CString)
    guard let path = mkdtemp(&template) else { throw FixtureError("mkdtemp failed: errno \(errno)") }
    let folder = String(cString: path)
    made.withLock { made in
      if made.isEmpty { atexit { FixturePlugin.removeMadeFolders() } }
      made.append(folder)
    }
    return folder
  }

  /// The folders `temporaryFolder` made: a test run would otherwise leave thousands behind.
  private static let made = Locked<[String]>([])

  private static func removeMadeFolders() {
    for folder in made.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: folder) }
  }

  /// The path of the fixture built with `defines`, built on first use and shared by the process's
  /// tests; `name` is the file name (default: `lib<first define or "fixture">.so`).
  public static func path(_ defines: [String] = [], name: String? = nil) throws -> String {
    let key = (defines + [name ?? ""]).joined(separator: ",")
    if let path = built.withLock({ $0[key] }) { return path }
    let file = "\(try temporaryFolder())/\(name ?? "lib" + (defines.first ?? "fixture").lowercased()).so"
    try build(defines, into: file)
    built.withLock { $0[key] = file }
    return file
  }

  /// Compiles the fixture with `defines` into `output` (a fresh build, not cached).
  public static func build(_ defines: [String] = [], into output: String) throws {
    try run(
      compiler,
      ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-Wno-unused", "-I", includeDirectory, "-I", exampleDirectory]
        + sanitizerFlags + defines.map { "-D\($0)" }
        + ["-o", output, source, "\(exampleDirectory)/flat_json.c", "-lpthread"])
  }

  // MARK: - Under a sanitizer

  /// The sanitizer this process was built with (`thread` or `address`), found by its runtime's
  /// entry point, which the executable exports; nil in an ordinary build.
  public static var sanitizer: String? { Sandbox.sanitizer }

  /// The C compiler fixtures are built with: `cc`, or under a sanitizer the toolchain's clang,
  /// whose instrumentation matches the runtime the test executable carries.
  public static var compiler: String { sanitizer == nil ? "cc" : "clang" }

  /// What a fixture's compile and link take under a sanitizer: built alike, so the sanitizer sees
  /// the fixture's threads and memory too. A shared library leaves the runtime's calls for the
  /// executable to resolve; an executable (`forExecutable`) links the runtime and exports what
  /// the Swift plugins it loads call (see Tests/Sanitizers/run).
  public static func sanitizerFlags(forExecutable: Bool) -> [String] {
    guard let sanitizer else { return [] }
    let flags = ["-fsanitize=\(sanitizer)", "-g"]
    guard forExecutable, sanitizer == "thread" else { return flags }
    // The toolchain's TSan runtime intercepts libdispatch, so it links against it.
    let libraries = toolchainLibraries
    return flags + [
      "-Wl,--dynamic-list=\(packageRoot)/Tests/Sanitizers/tsan-exports.list", "-L", libraries,
      "-Wl,-rpath,\(libraries)", "-ldispatch", "-lBlocksRuntime",
    ]
  }

  /// The toolchain's runtime libraries (libdispatch), beside the `clang` found in PATH.
  static var toolchainLibraries: String {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    guard let folder = folders.first(where: { access("\($0)/clang", X_OK) == 0 }) else { return "/usr/lib" }
    let clang = URL(fileURLWithPath: "\(folder)/clang").resolvingSymlinksInPath()
    return clang.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib/swift/linux").path
  }

  /// `sanitizerFlags(forExecutable: false)`: for a fixture plugin.
  public static var sanitizerFlags: [String] { sanitizerFlags(forExecutable: false) }

  /// Runs a tool from PATH in the package root; returns its stdout, throws with its stderr.
  @discardableResult
  public static func run(_ tool: String, _ arguments: [String]) throws -> String {
    var process = ChildProcess(tool, arguments: arguments)
    process.workingDirectory = packageRoot
    let result = try process.run(timeout: .seconds(300))
    guard result.termination == .exited(0) else {
      throw FixtureError(
        "\(tool) \(arguments.joined(separator: " ")) failed (\(result.termination)): \(result.errorText)")
    }
    return result.outputText
  }
}

public struct FixtureError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}
