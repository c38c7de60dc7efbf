import Foundation
import HostKit

/// The flow a `FlowTestStore` runs.
public struct FlowSource: Sendable {
  enum Form: Sendable {
    case main
    case file(String)
    case json(String)
  }

  let form: Form

  /// The host's main flow (`Flow.mainJSON`): the home menu, and the feature it picks. Needs the
  /// `Home` plugin.
  public static let main = FlowSource(form: .main)

  /// A flow file, as `host run --flow FILE` reads it.
  public static func file(_ path: String) -> FlowSource { FlowSource(form: .file(path)) }

  /// A flow written inline, as JSON text.
  public static func json(_ text: String) -> FlowSource { FlowSource(form: .json(text)) }

  /// The flow this source names, checked as `host run --flow` checks it against `plugins`.
  ///
  /// - Throws: `HostError` for a flow that does not parse or names what no plugin provides, or
  ///   for `.main` without the home menu among `plugins`.
  func load(for plugins: [LoadedPlugin]) throws(HostError) -> Flow {
    let ids = Set(plugins.map(\.id))
    let steps = Set(plugins.flatMap { $0.manifest.steps.map(\.step) })
    switch form {
    case .main:
      guard ids.contains(HomeMenuConfig.id) else {
        throw HostError(
          "the main flow needs the home menu plugin ('home'), which is not among \(plugins.map(\.id))",
          help: "add \"Home\" to plugins:, or pass flow: .json(...) or .file(...)")
      }
      return try Flow.load(Flow.mainJSON, file: "main", features: ids, steps: steps)
    case .file(let path):
      let text: String
      do {
        text = try String(contentsOfFile: path, encoding: .utf8)
      } catch {
        throw HostError("cannot read flow '\(path)': \(SystemReason.of(error, naming: path))", help: "check the path")
      }
      return try Flow.load(text, file: path, features: ids, steps: steps)
    case .json(let text):
      return try Flow.load(text, file: "inline", features: ids, steps: steps)
    }
  }
}
