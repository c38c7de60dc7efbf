import FeatureJSON
import Foundation
import HostKit

/// `host dev [DIR]`: the inner loop of a plugin folder made by `host new`. Builds it, runs its
/// feature with `--watch`, rebuilds after each change to its sources (build errors are printed
/// below the view; the feature keeps running), and the new build is reloaded with the state kept.
struct DevCommand {
  let console: Console
  let global: Global

  /// How a plugin folder is built, and what it builds.
  struct Project: Equatable {
    enum Kind: Equatable { case swift, c }
    let kind: Kind
    let folder: String
    /// The plugin file the build writes.
    let library: String

    var tool: (name: String, arguments: [String]) {
      switch kind {
      case .swift: ("swift", ["build"])
      case .c: ("make", [])
      }
    }

    /// Whether a change to `path` calls for a build.
    func isSource(_ path: String) -> Bool {
      let name = URL(fileURLWithPath: path).lastPathComponent
      switch kind {
      case .swift: return name.hasSuffix(".swift") && !path.hasPrefix("\(folder)/Tests/")
      case .c: return name.hasSuffix(".c") || name.hasSuffix(".h") || name == "Makefile" || name == "exports.map"
      }
    }

    /// The project in `folder`: a SwiftPM package with one dynamic library product, or a folder
    /// with a Makefile that names `LIB = lib<name>.so`.
    static func find(in folder: String) throws(HostError) -> Project {
      let help =
        "run it in a folder made by 'host new NAME' (Swift: Package.swift; C: Makefile), or name one: 'host dev DIR'"
      if let package = try? String(contentsOfFile: "\(folder)/Package.swift", encoding: .utf8) {
        guard let product = firstMatch(in: package, #"\.library\(\s*name:\s*"([^"]+)",\s*type:\s*\.dynamic"#) else {
          throw HostError("'\(folder)/Package.swift' has no dynamic library product (a plugin)", help: help)
        }
        return Project(kind: .swift, folder: folder, library: "\(folder)/.build/debug/lib\(product).so")
      }
      if let makefile = try? String(contentsOfFile: "\(folder)/Makefile", encoding: .utf8) {
        guard let library = firstMatch(in: makefile, #"(?m)^LIB\s*=\s*(\S+\.so)\s*$"#) else {
          throw HostError("'\(folder)/Makefile' names no 'LIB = libNAME.so'", help: help)
        }
        return Project(kind: .c, folder: folder, library: "\(folder)/\(library)")
      }
      throw HostError("'\(folder)' is not a plugin folder: it has neither a Package.swift nor a Makefile", help: help)
    }

    private static func firstMatch(in text: String, _ pattern: String) -> String? {
      guard let expression = try? NSRegularExpression(pattern: pattern),
        let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
        let range = Range(match.range(at: 1), in: text)
      else { return nil }
      return String(text[range])
    }
  }

  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    let folder = URL(fileURLWithPath: arguments.positionals.first ?? FileManager.default.currentDirectoryPath)
      .standardizedFileURL.path
    // Options first: a usage error comes before a build.
    var config: [String: JSONValue] = [:]
    for text in arguments.texts(CommandTable.Run.config) {
      try RunCommand.merge(config: text, into: &config)
    }
    var settings = try RunSettings(arguments, global: global)
    settings.reload.watches = true
    // The first worker starts while the plugin builds.
    settings.instances.prepare()
    defer { InstanceFactory.discardPrepared() }
    let project = try Project.find(in: folder)
    console.note("building \(folder) (\(([project.tool.name] + project.tool.arguments).joined(separator: " ")))")
    if let failure = Self.build(project), !FileManager.default.fileExists(atPath: project.library) {
      throw HostError(
        "the first build failed, so there is nothing to run:\n\(failure)", help: "fix it and run 'host dev' again")
    }
    // The plugin's folder comes first, so its feature wins over one of the same id elsewhere.
    var global = self.global
    let pluginFolder = URL(fileURLWithPath: project.library).deletingLastPathComponent().path
    global.pluginDirectories.insert(pluginFolder, at: 0)
    let found = global.discover()
    let library = URL(fileURLWithPath: project.library).standardizedFileURL.path
    guard let record = found.plugins.first(where: { URL(fileURLWithPath: $0.path).standardizedFileURL.path == library })
    else {
      let why = found.rejections.first { $0.path.hasSuffix(URL(fileURLWithPath: library).lastPathComponent) }
      throw HostError(
        "'\(project.library)' was built but is not a plugin the host can run\(why.map { ": \($0.reason)" } ?? "")",
        help: why?.help ?? "check it with 'host validate \(project.library)'")
    }
    let console = self.console
    let sources = try FileWatch(.tree(root: folder, matches: project.isSource), settle: .milliseconds(50)) {
      changed in
      let names = changed.map { $0.hasPrefix(folder + "/") ? String($0.dropFirst(folder.count + 1)) : $0 }
      console.note("\(names.joined(separator: ", ")) changed: building")
      if let failure = Self.build(project) {
        console.report(
          HostError(
            "the build failed; \(record.id) goes on with the last good build:\n\(failure)",
            help: "fix it and save: it builds again"))
      }
    }
    defer { sources.cancel() }
    return try RunSession(
      console: console, plugins: found.plugins, flow: .single(record.id),
      config: JSONValue.object(config).serialized(), settings: settings
    ).run()
  }

  /// Runs the project's build; nil when it succeeded, else what it printed (its last 40 lines).
  private static func build(_ project: Project) -> String? {
    var process = ChildProcess(project.tool.name, arguments: project.tool.arguments)
    process.workingDirectory = project.folder
    let result: ChildResult
    do {
      result = try process.run(timeout: .seconds(600))
    } catch {
      return "cannot run \(project.tool.name): \(error)"
    }
    guard result.termination != .exited(0) else { return nil }
    let lines = (result.outputText + result.errorText).split(separator: "\n", omittingEmptySubsequences: false)
    return lines.suffix(40).joined(separator: "\n") + "\n\(project.tool.name) \(result.termination)"
  }
}
