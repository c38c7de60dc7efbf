import Foundation
import HostKit

/// `host new NAME`: a plugin folder with a feature skeleton, its build and a passing test.
struct NewCommand {
  static let usage = """
    usage: host new NAME [--lang swift|c] [--dir DIR] [--featurehost DIR]

    Creates the folder DIR/NAME (DIR defaults to the current folder) holding a feature plugin
    with the id NAME: a running total you add to and reset, ready to make your own.

      --lang swift      (default) a SwiftPM package: the feature on FeatureKit, a dynamic
                        library product, a FeatureTesting test, a transcript
      --lang c          NAME.c against feature_abi.h alone, exports.map (only the entry symbol
                        is exported), a Makefile (make; make check runs the transcript)
      --featurehost DIR the FeatureHost checkout to build against (default: the one this
                        host was built from)

    NAME: lowercase letters, digits, '-' and '_', starting with a letter. An existing folder is
    never overwritten.
    """

  let console: Console

  func run(_ options: [String]) throws(HostError) -> Int32 {
    var name: String?
    var language = Scaffold.Language.swift
    var parent = FileManager.default.currentDirectoryPath
    var featureHost = Self.builtFrom
    var arguments = ArgumentReader(options, help: "see 'host new --help'")
    while let option = arguments.next() {
      func value() throws(HostError) -> String { try arguments.value(of: option) }
      switch option {
      case "-h", "--help":
        console.out(Self.usage)
        return 0
      case "--lang":
        let text = try value()
        guard let chosen = Scaffold.Language(rawValue: text) else {
          throw .usage("--lang '\(text)' is not a language 'host new' knows", help: "use --lang swift or --lang c")
        }
        language = chosen
      case "--dir":
        parent = try value()
      case "--featurehost":
        featureHost = try value()
      default:
        if option.hasPrefix("-") {
          throw .usage(
            "unknown option '\(option)' for 'new'",
            help: HostCLI.suggest(option, ["--lang", "--dir", "--featurehost", "--help"]))
        }
        guard name == nil else { throw .usage("'new' takes one NAME, got '\(name ?? "")' and '\(option)'") }
        name = option
      }
    }
    guard let name else { throw .usage("'new' needs a NAME for the feature", help: "e.g. host new my-feature") }
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
    let scaffold = Scaffold(name: name, language: language, featureHost: root)
    try scaffold.write(into: folder)
    console.out("created \(folder) (\(language.rawValue)): the feature '\(name)', its build and a passing test")
    console.out("next steps:")
    console.out(Self.nextSteps(scaffold, folder: folder).map { "  \($0)" }.joined(separator: "\n"))
    return 0
  }

  static func nextSteps(_ scaffold: Scaffold, folder: String) -> [String] {
    let host = "\(scaffold.featureHost)/host"
    switch scaffold.language {
    case .swift:
      return [
        "cd \(folder)",
        "swift build       # builds .build/debug/lib\(scaffold.typeName).so",
        "swift test        # Tests/\(scaffold.typeName)Tests drives the built plugin through the ABI",
        "\(host) --plugins .build/debug run \(scaffold.name)",
        "\(host) --plugins .build/debug check \(scaffold.name).transcript",
        "then edit Sources/\(scaffold.typeName)Feature/\(scaffold.typeName)Feature.swift and its test",
      ]
    case .c:
      return [
        "cd \(folder)",
        "make              # builds lib\(scaffold.name).so (only fh_plugin_entry_v1 exported)",
        "make check        # runs \(scaffold.name).transcript through the host",
        "\(host) --plugins . run \(scaffold.name)",
        "then edit \(scaffold.name).c and its transcript",
      ]
    }
  }

  /// The checkout this host was built from: this file's folder, three levels up.
  static let builtFrom: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
