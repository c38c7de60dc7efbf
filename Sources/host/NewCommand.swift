import Foundation
import HostKit

/// `host new NAME`: a plugin folder with a feature skeleton, its build and a passing test.
struct NewCommand {
  let console: Console

  /// Its arguments are read against `CommandTable.new`: a NAME, `--lang`, `--dir`, `--featurehost`.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    // The reader has checked NAME is there.
    let name = arguments.positionals[0]
    // The table allows only the languages there are.
    let language = arguments.text(CommandTable.New.lang).flatMap(Scaffold.Language.init(rawValue:)) ?? .swift
    let parent = arguments.text(CommandTable.New.dir) ?? FileManager.default.currentDirectoryPath
    let featureHost = arguments.text(CommandTable.New.featureHost) ?? Self.builtFrom
    if let problem = Scaffold.problem(with: name) {
      throw .usage(
        "'\(name)' cannot be a feature name: \(problem)",
        help: "use lowercase letters, digits, '-' and '_', starting with a letter, e.g. 'my-feature'")
    }
    let root = URL(fileURLWithPath: featureHost).standardizedFileURL.path
    guard FileManager.default.fileExists(atPath: "\(root)/Sources/FeatureABI/include/feature_abi.h") else {
      throw HostError(
        "'\(root)' is not a FeatureHost checkout (no Sources/FeatureABI/include/feature_abi.h)",
        help: "name the checkout with --featurehost DIR")
    }
    let folder = URL(fileURLWithPath: parent).appendingPathComponent(name).standardizedFileURL.path
    guard !FileManager.default.fileExists(atPath: folder) else {
      throw HostError(
        "'\(folder)' already exists; 'host new' never overwrites a folder",
        help: "choose another NAME or --dir, or move the folder away first")
    }
    let scaffold = Scaffold(name: name, language: language, featureHost: root, folder: folder)
    try scaffold.write(into: folder)
    console.out("created \(folder) (\(language.rawValue)): the feature '\(name)', its build and a passing test")
    console.out("next steps:")
    console.out(Self.nextSteps(scaffold, folder: folder).map { "  \($0)" }.joined(separator: "\n"))
    return 0
  }

  /// What to do next in `folder`, the host named in `featureHost` (the checkout's path).
  static func nextSteps(_ scaffold: Scaffold, folder: String, featureHost: String? = nil) -> [String] {
    let host = "\(featureHost ?? scaffold.featureHost)/host"
    switch scaffold.language {
    case .swift:
      return [
        "cd \(folder)",
        "swift build       # builds .build/debug/lib\(scaffold.typeName).so",
        "swift test        # Tests/\(scaffold.typeName)Tests drives the built plugin through the ABI",
        "\(host) --plugins .build/debug run \(scaffold.name)",
        "\(host) dev      # runs it, rebuilds and reloads it (state kept) on every save",
        "\(host) --plugins .build/debug check \(scaffold.name).transcript",
        "\(host) validate .build/debug/lib\(scaffold.typeName).so   # the contract checks",
        "then edit Sources/\(scaffold.typeName)Feature/\(scaffold.typeName)Feature.swift and its test",
      ]
    case .c:
      return [
        "cd \(folder)",
        "make              # builds lib\(scaffold.name).so (only fh_plugin_entry_v1 exported)",
        "make check        # runs \(scaffold.name).transcript through the host",
        "\(host) --plugins . run \(scaffold.name)",
        "\(host) dev      # runs it, rebuilds and reloads it (state kept) on every save",
        "\(host) validate lib\(scaffold.name).so   # the contract checks",
        "then edit \(scaffold.name).c and its transcript",
      ]
    }
  }

  /// The checkout this host was built from: this file's folder, three levels up.
  static let builtFrom: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
