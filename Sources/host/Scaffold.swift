import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// The files `host new` writes for one plugin: a feature skeleton, its build, a passing test.
struct Scaffold {
  enum Language: String, CaseIterable {
    case swift, c
  }

  /// The feature id, as typed: lowercase letters, digits, `-`, `_`.
  let name: String
  let language: Language
  /// The FeatureHost checkout the plugin builds against (its header, FeatureKit, the host): an
  /// absolute path, for what `host new` prints.
  let featureHost: String
  /// The checkout as the generated files name it: relative to the plugin folder, so the folder
  /// builds wherever the two are moved together (`$FEATUREHOST` names another checkout).
  let recordedFeatureHost: String

  /// A scaffold for the plugin folder `folder` (an absolute path, not made yet).
  init(name: String, language: Language, featureHost: String, folder: String) {
    self.name = name
    self.language = language
    self.featureHost = featureHost
    recordedFeatureHost = Self.relativePath(to: Self.resolved(featureHost), from: Self.resolved(folder))
  }

  /// `path` with its symbolic links resolved, as far as it exists: `..` in a relative path is
  /// taken by the system from the real folder, so the path is worked out from there.
  static func resolved(_ path: String) -> String {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    guard let real = realpath(url.path, nil) else {
      let parent = url.deletingLastPathComponent().path
      return parent == url.path ? url.path : "\(resolved(parent))/\(url.lastPathComponent)"
    }
    defer { free(real) }
    return String(cString: real)
  }

  /// The relative path from folder `base` to `target`, both absolute.
  static func relativePath(to target: String, from base: String) -> String {
    let to = URL(fileURLWithPath: target).standardizedFileURL.pathComponents
    let from = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
    var common = 0
    while common < min(to.count, from.count) && to[common] == from[common] { common += 1 }
    let parts = Array(repeating: "..", count: from.count - common) + to[common...]
    return parts.isEmpty ? "." : parts.joined(separator: "/")
  }

  /// `my-feature` -> `MyFeature`: the Swift type and library product name.
  var typeName: String {
    name.split(whereSeparator: { $0 == "-" || $0 == "_" })
      .map { $0.prefix(1).uppercased() + $0.dropFirst() }
      .joined()
  }

  /// The relative path and contents of every file.
  var files: [(path: String, contents: String)] {
    switch language {
    case .swift:
      [
        ("Package.swift", ScaffoldSwift.package(self)),
        ("Sources/\(typeName)Feature/\(typeName)Feature.swift", ScaffoldSwift.feature(self)),
        ("Tests/\(typeName)Tests/\(typeName)Tests.swift", ScaffoldSwift.tests(self)),
        ("\(name).transcript", ScaffoldSwift.transcript(self)),
        (".gitignore", ".build/\n.swiftpm/\n"),
        ("README.md", ScaffoldSwift.readme(self)),
      ]
    case .c:
      [
        ("\(name).c", ScaffoldC.source(self)),
        ("exports.map", ScaffoldC.exports),
        ("Makefile", ScaffoldC.makefile(self)),
        ("\(name).transcript", ScaffoldC.transcript(self)),
        (".gitignore", "*.so\n*.o\n"),
        ("README.md", ScaffoldC.readme(self)),
      ]
    }
  }

  /// Why `name` cannot be a feature id, or nil when it can.
  static func problem(with name: String) -> String? {
    guard let first = name.unicodeScalars.first else { return "the name is empty" }
    guard ("a"..."z").contains(first) else { return "it must start with a lowercase letter" }
    guard name.unicodeScalars.count <= 64 else { return "it is longer than 64 characters" }
    let allowed = name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
    }
    guard allowed else { return "it may hold only lowercase letters, digits, '-' and '_'" }
    guard !name.hasSuffix("-"), !name.hasSuffix("_") else { return "it must not end with '-' or '_'" }
    return nil
  }

  /// Writes every file under `folder`, which must not exist yet. Folders get mode 0755 whatever
  /// the umask, because the host refuses plugin folders that others can write to.
  func write(into folder: String) throws(HostError) {
    let manager = FileManager.default
    do {
      for file in files {
        let url = URL(fileURLWithPath: folder).appendingPathComponent(file.path)
        var directory = url.deletingLastPathComponent()
        var created: [URL] = []
        while !manager.fileExists(atPath: directory.path) {
          created.append(directory)
          directory = directory.deletingLastPathComponent()
        }
        for made in created.reversed() {
          try manager.createDirectory(at: made, withIntermediateDirectories: false)
          try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: made.path)
        }
        try file.contents.write(to: url, atomically: false, encoding: .utf8)
        try manager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
      }
    } catch {
      throw HostError("cannot write the plugin folder '\(folder)': \(SystemReason.of(error, naming: folder))")
    }
  }

  /// The transcript every language writes: a session typed to `host run`, then `more` (whole
  /// lines), checked by the command `check`.
  func transcript(checkedBy check: String, more: String = "") -> String {
    #"""
    # \#(name): what a person types to the host, and exactly what it prints back.
    # Check it: \#(check)
    $ host run \#(name)
    > add amount=3
    > add amount=4
    > :state
    {"total":7}
    > add amount=x
    ! error: argument amount='x' of 'add' must be an integer
    ! help: amount: how much to add (may be negative)
    \#(more)^D
    \#(typeName)
      total: 7

    """#
  }

  /// The README every language writes: what made it (`madeBy`), the next steps, `body` (whole
  /// lines, ending in a blank one), and where the contract is.
  func readme(madeBy: String, body: String) -> String {
    let steps = NewCommand.nextSteps(self, folder: ".", featureHost: recordedFeatureHost).dropFirst()
      .map { "    \($0)" }.joined(separator: "\n")
    return #"""
      # \#(name)

      A FeatureHost feature plugin \#(madeBy).

      \#(steps)

      \#(body)The contract is `\#(recordedFeatureHost)/Sources/FeatureABI/include/feature_abi.h`.
      It builds against the FeatureHost checkout at `\#(recordedFeatureHost)` (relative to this folder, so
      the two can move together), or the one the environment variable `FEATUREHOST` names.

      """#
  }
}
