import FeatureTesting
import Foundation
import HostKit
import Testing

/// `host new`: the folders it makes build, load in the host, and pass their own tests.
@Suite("host new")
struct HostNewTests {
  /// A fresh, empty parent folder (mode 0700: only this user may write plugins there), removed
  /// when the test process exits.
  static func parent() throws -> String { try FixturePlugin.temporaryFolder() }

  /// Runs `arguments` in `folder` with `environment` added; returns the exit status and all output.
  static func shell(
    _ arguments: [String], in folder: String, environment: [String: String] = [:]
  ) async throws -> (status: Int32, output: String) {
    try await offPool { try run(arguments, in: folder, environment: environment) }
  }

  private static func run(
    _ arguments: [String], in folder: String, environment: [String: String]
  ) throws -> (status: Int32, output: String) {
    // SwiftPM's lock files and the driver's scratch folders go to TMPDIR: one removed at exit.
    var added = ["TMPDIR": try FixturePlugin.temporaryFolder(prefix: "featurehost-swiftpm")]
    added.merge(environment) { _, new in new }
    var process = ChildProcess(
      "/usr/bin/env", arguments: arguments,
      environment: ChildProcess.currentEnvironment.merging(added) { _, new in new })
    process.workingDirectory = folder
    process.errorIntoOutput = true
    let result = try process.run()
    return (result.termination.shellStatus, result.outputText)
  }

  @Test func aCPluginBuildsWithCcLoadsAndPassesItsTranscript() async throws {
    // given a new C plugin
    let parent = try Self.parent()
    let created = try await HostProcess.run(["new", "tally", "--lang", "c", "--dir", parent])
    #expect(created.status == 0)
    #expect(created.stderr == "")
    #expect(
      created.stdout.hasPrefix(
        "created \(parent)/tally (c): the feature 'tally', its build and a passing test\nnext steps:\n"))
    let folder = "\(parent)/tally"
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        == ["tally.c", "exports.map", "Makefile", "tally.transcript", ".gitignore", "README.md"])
    // with the checkout named relative to the folder, so the two can move together
    let makefile = try String(contentsOfFile: "\(folder)/Makefile", encoding: .utf8)
    #expect(makefile.contains("FEATUREHOST ?= ../"))
    #expect(!makefile.contains("?= \(FixturePlugin.packageRoot)"))
    // when it is built with its Makefile (cc, the header alone, the version script)
    let built = try await Self.shell(["make"], in: folder)
    #expect(built.status == 0, "\(built.output)")
    // then it loads, exports nothing but the entry, and drives through the ABI
    let plugin = try PluginLoader.load("\(folder)/libtally.so")
    #expect(plugin.manifest.id == "tally")
    #expect(plugin.manifest.actions.map(\.type) == ["add", "reset"])
    // declaring the ABI minor whose rules it keeps, 1.1
    #expect(plugin.abiMinor == 1)
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

  // The README's `host new` block (run by ReadmeTests) builds a new Swift plugin, runs its test,
  // its transcript and `validate`: the one build of a generated package in the tests.

  @Test(.timeLimit(.minutes(10)))
  func aSwiftPackageNamesTheCheckoutByARelativePathOrFEATUREHOST() async throws {
    // given a new Swift plugin in a folder away from the checkout
    let parent = try Self.parent()
    let root = FixturePlugin.packageRoot
    let created = try await HostProcess.run(["new", "word-count", "--dir", "\(parent)/plugins"])
    #expect(created.status == 0, "\(created.stderr)")
    let folder = "\(parent)/plugins/word-count"
    // then no generated file holds the checkout's absolute path, and the manifest names the
    // checkout's package by its name, not by its folder's
    for file in try FileManager.default.subpathsOfDirectory(atPath: folder) {
      var isFolder: ObjCBool = false
      guard FileManager.default.fileExists(atPath: "\(folder)/\(file)", isDirectory: &isFolder), !isFolder.boolValue
      else { continue }
      let text = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
      #expect(!text.contains(" \(root)") && !text.contains("\"\(root)") && !text.contains("`\(root)"), "\(file)")
    }
    let manifest = try String(contentsOfFile: "\(folder)/Package.swift", encoding: .utf8)
    let relative = Self.relativePath(from: Self.real(folder), to: Self.real(root))
    #expect(manifest.contains(#"let featureHost = Context.environment["FEATUREHOST"] ?? "\#(relative)""#))
    #expect(manifest.contains(#".package(name: "FeatureHost", path: featureHost)"#))
    #expect(!manifest.contains(#"package: "\#(URL(fileURLWithPath: root).lastPathComponent.lowercased())""#))
    // and the feature is one source file and three lines of Package.swift: its product and its target
    let sources = try FileManager.default.subpathsOfDirectory(atPath: "\(folder)/Sources")
    #expect(sources.filter { $0.hasSuffix(".swift") } == ["WordCountFeature/WordCountFeature.swift"])
    let featureLines = manifest.split(separator: "\n").filter { line in
      !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        && (line.contains("WordCountFeature") || line.contains("ActionDecoding"))
    }
    #expect(featureLines.count == 3, "\(featureLines)")
    // and SwiftPM finds the products through it
    let resolved = try await Self.shell(["swift", "package", "show-dependencies"], in: folder)
    #expect(resolved.status == 0, "\(resolved.output)")
    // when the folder moves away alone, the path no longer leads to a checkout, and FEATUREHOST names one
    try FileManager.default.createDirectory(atPath: "\(parent)/elsewhere/deeper", withIntermediateDirectories: true)
    let moved = "\(parent)/elsewhere/deeper/word-count"
    try FileManager.default.moveItem(atPath: folder, toPath: moved)
    let lost = try await Self.shell(["swift", "package", "show-dependencies"], in: moved)
    #expect(lost.status != 0)
    #expect(lost.output.contains("cannot be accessed"), "\(lost.output)")
    let named = try await Self.shell(
      ["swift", "package", "show-dependencies"], in: moved, environment: ["FEATUREHOST": root])
    #expect(named.status == 0, "\(named.output)")
  }

  /// `path` with its symbolic links resolved (the relative path is worked out from there).
  static func real(_ path: String) -> String {
    URL(fileURLWithPath: path).resolvingSymlinksInPath().path
  }

  /// The relative path from folder `base` to `target`, both absolute and resolved.
  static func relativePath(from base: String, to target: String) -> String {
    let from = base.split(separator: "/")
    let to = target.split(separator: "/")
    let common = zip(from, to).prefix { $0 == $1 }.count
    return (Array(repeating: "..", count: from.count - common) + to.dropFirst(common).map(String.init))
      .joined(separator: "/")
  }

  @Test func anExistingFolderIsNeverOverwritten() async throws {
    let parent = try Self.parent()
    try FileManager.default.createDirectory(atPath: "\(parent)/taken", withIntermediateDirectories: false)
    try "mine".write(toFile: "\(parent)/taken/notes.txt", atomically: true, encoding: .utf8)
    let result = try await HostProcess.run(["new", "taken", "--dir", parent])
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
    let result = try await HostProcess.run(["new", bad.name, "--dir", parent])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: '\(bad.name)' cannot be a feature name: \(bad.why)\nhelp: use lowercase"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == [])
  }

  @Test func anUnknownLanguageIsAUsageError() async throws {
    let result = try await HostProcess.run(["new", "tally", "--lang", "rust"])
    #expect(result.status == 64)
    #expect(
      result.stderr.hasPrefix(
        "error: --lang 'rust' is not a language 'host new' knows\nhelp: use --lang swift or --lang c"))
  }
}
