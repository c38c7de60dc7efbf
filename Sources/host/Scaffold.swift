import Foundation
import HostKit

/// The files `host new` writes for one plugin: a feature skeleton, its build, a passing test.
struct Scaffold {
  enum Language: String, CaseIterable {
    case swift, c
  }

  /// The feature id, as typed: lowercase letters, digits, `-`, `_`.
  let name: String
  let language: Language
  /// The FeatureHost checkout the plugin builds against (its header, FeatureKit, the host).
  let featureHost: String

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
        ("Sources/\(typeName)Plugin/\(typeName)Plugin.swift", ScaffoldSwift.plugin(self)),
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

  /// The identity SwiftPM gives a path dependency: its folder's name, lowercased.
  var featureHostIdentity: String {
    URL(fileURLWithPath: featureHost).lastPathComponent.lowercased()
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
}
