import FeatureTesting
import Foundation
import HostKit
import Testing

/// `host new`: the folders it makes build, load in the host, and pass their own tests.
@Suite("host new")
struct HostNewTests {
  /// A fresh, empty parent folder (mode 0700: only this user may write plugins there).
  static func parent() throws -> String {
    let path = NSTemporaryDirectory() + "featurehost-new-\(UUID().uuidString)"
    try FileManager.default.createDirectory(
      atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return path
  }

  /// Runs `arguments` in `folder` with `environment` added; returns the exit status and all output.
  static func shell(
    _ arguments: [String], in folder: String, environment: [String: String] = [:]
  ) async throws -> (status: Int32, output: String) {
    try await blocking { try run(arguments, in: folder, environment: environment) }
  }

  private static func run(
    _ arguments: [String], in folder: String, environment: [String: String]
  ) throws -> (status: Int32, output: String) {
    var process = ChildProcess(
      "/usr/bin/env", arguments: arguments,
      environment: ChildProcess.currentEnvironment.merging(environment) { _, new in new })
    process.workingDirectory = folder
    process.errorIntoOutput = true
    let result = try process.run()
    return (result.termination.shellStatus, result.outputText)
  }

  @Test func aCPluginBuildsWithCcLoadsAndPassesItsTranscript() async throws {
    // given a new C plugin
    let parent = try Self.parent()
    let created = try await runHost(["new", "tally", "--lang", "c", "--dir", parent])
    #expect(created.status == 0)
    #expect(created.stderr == "")
    #expect(
      created.stdout.hasPrefix(
        "created \(parent)/tally (c): the feature 'tally', its build and a passing test\nnext steps:\n"))
    let folder = "\(parent)/tally"
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        == ["tally.c", "exports.map", "Makefile", "tally.transcript", ".gitignore", "README.md"])
    // when it is built with its Makefile (cc, the header alone, the version script)
    let built = try await Self.shell(["make"], in: folder)
    #expect(built.status == 0, "\(built.output)")
    // then it loads, exports nothing but the entry, and drives through the ABI
    let plugin = try PluginLoader.load("\(folder)/libtally.so")
    #expect(plugin.manifest.id == "tally")
    #expect(plugin.manifest.actions.map(\.type) == ["add", "reset"])
    let symbols = try await Self.shell(["nm", "-D", "--defined-only", "\(folder)/libtally.so"], in: folder)
    #expect(
      symbols.output.split(separator: "\n").filter { $0.contains(" T ") }.map { $0.split(separator: " ").last } == [
        "fh_plugin_entry_v1"
      ])
    let store = try await FeatureTestStore(plugin: "\(folder)/libtally.so")
    await store.send("add amount=3", assert: ["total": 3])
    await store.send(#"{"type":"add","amount":9223372036854775807}"#, rejectedWith: "would overflow")
    await store.send("reset", assert: ["total": 0])
    await store.finish()
    // and its own test, the transcript, passes through this host
    let check = try await Self.shell(["make", "check", "HOST=\(HostProcess.executable)"], in: folder)
    #expect(check.status == 0, "\(check.output)")
    #expect(check.output.hasSuffix("pass tally.transcript\n1 passed, 0 failed\n"))
  }

  @Test(.timeLimit(.minutes(20)))
  func aSwiftPluginBuildsAsItsOwnPackageLoadsAndPassesItsTest() async throws {
    // given a new Swift plugin: a package that depends on this checkout by path
    let parent = try Self.parent()
    let created = try await runHost(["new", "word-count", "--dir", parent])
    #expect(created.status == 0)
    #expect(created.stdout.hasPrefix("created \(parent)/word-count (swift)"))
    let folder = "\(parent)/word-count"
    // when it is built once, tests included, offline
    let scratch = "\(folder)/.build"
    // One job at the lowest priority: the tests running beside it have time bounds of their own.
    let built = try await Self.shell(
      ["nice", "-n", "19", "swift", "build", "-j", "1", "--build-tests", "--scratch-path", scratch], in: folder)
    #expect(built.status == 0, "\(built.output)")
    // then the plugin loads in this process, and the package's own test passes
    let plugin = try PluginLoader.load("\(scratch)/debug/libWordCount.so")
    #expect(plugin.manifest.id == "word-count")
    let tested = try await Self.shell(["swift", "test", "--skip-build", "--scratch-path", scratch], in: folder)
    #expect(tested.status == 0, "\(tested.output)")
    #expect(tested.output.contains("Test run with 2 tests"))
    // and so does its transcript, through this host
    let check = try await runHost(["--plugins", "\(scratch)/debug", "check", "\(folder)/word-count.transcript"])
    #expect(check.stdout.hasSuffix("1 passed, 0 failed\n"), "\(check.stdout)")
  }

  @Test func anExistingFolderIsNeverOverwritten() async throws {
    let parent = try Self.parent()
    try FileManager.default.createDirectory(atPath: "\(parent)/taken", withIntermediateDirectories: false)
    try "mine".write(toFile: "\(parent)/taken/notes.txt", atomically: true, encoding: .utf8)
    let result = try await runHost(["new", "taken", "--dir", parent])
    #expect(result.status == 1)
    #expect(
      result.stderr == """
        error: '\(parent)/taken' already exists; 'host new' never overwrites a folder
        help: choose another NAME or --dir, or move the folder away first

        """)
    #expect(try FileManager.default.contentsOfDirectory(atPath: "\(parent)/taken") == ["notes.txt"])
  }

  struct BadName: CustomTestStringConvertible, Sendable {
    let id: String
    let name: String
    let why: String
    var testDescription: String { id }
  }

  static let badNames: [BadName] = [
    BadName(id: "uppercase", name: "Counter", why: "it must start with a lowercase letter"),
    BadName(id: "leading-digit", name: "2fast", why: "it must start with a lowercase letter"),
    BadName(id: "space", name: "my feature", why: "it may hold only lowercase letters, digits, '-' and '_'"),
    BadName(id: "slash", name: "a/b", why: "it may hold only lowercase letters, digits, '-' and '_'"),
    BadName(id: "dot", name: "a.b", why: "it may hold only lowercase letters, digits, '-' and '_'"),
    BadName(id: "accent", name: "café", why: "it may hold only lowercase letters, digits, '-' and '_'"),
    BadName(id: "trailing-dash", name: "tally-", why: "it must not end with '-' or '_'"),
    BadName(id: "too-long", name: String(repeating: "a", count: 65), why: "it is longer than 64 characters"),
  ]

  @Test("a name that cannot be a feature id is refused", arguments: badNames)
  func badNameIsRefused(_ bad: BadName) async throws {
    let parent = try Self.parent()
    let result = try await runHost(["new", bad.name, "--dir", parent])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: '\(bad.name)' cannot be a feature name: \(bad.why)\nhelp: use lowercase"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == [])
  }

  @Test func anUnknownLanguageIsAUsageError() async throws {
    let result = try await runHost(["new", "tally", "--lang", "rust"])
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix(
        "error: --lang 'rust' is not a language 'host new' knows\nhelp: use --lang swift or --lang c"))
  }
}
