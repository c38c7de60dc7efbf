import FeatureJSON
import HostKit

/// `host run ID`: one feature in the terminal; `host run --flow FILE` and `host` alone: a flow.
struct RunCommand {
  let console: Console
  let global: Global
  /// `host` with no command: the main flow.
  var mainFlow = false

  init(console: Console, global: Global, mainFlow: Bool = false) {
    self.console = console
    self.global = global
    self.mainFlow = mainFlow
  }

  /// Its arguments are read against `CommandTable.run` (or `mainFlow`); the values are checked
  /// here for what the table cannot know: a config's shape, a session name.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    var settings = try RunSettings(arguments, global: global)
    // The first feature's worker starts while the plugins are found and the flow is read.
    settings.instances.prepare()
    defer { InstanceFactory.discardPrepared() }
    var config: [String: JSONValue] = [:]
    let found = global.discover()
    var scoped: [String: [String: JSONValue]] = [:]
    for text in arguments.texts(CommandTable.Run.config) {
      // `ID.KEY=VALUE` is for feature ID wherever the run opens it; the rest for the one it starts.
      if let (id, rest) = Self.featureScoped(text, ids: found.ids) {
        try Self.merge(config: rest, into: &scoped[id, default: [:]])
      } else {
        try Self.merge(config: text, into: &config)
      }
    }
    let flowFile = arguments.text(CommandTable.Run.flow)
    settings.featureConfigs = scoped.mapValues { JSONValue.object($0).serialized() }
    let id = arguments.positionals.first
    let flow: Flow
    // The reader let through an id or --flow for 'run', neither for the main flow.
    if let flowFile {
      flow = try Self.loadFlow(flowFile, found: found)
    } else if let id {
      flow = .single(id)
    } else {
      flow = try Self.loadFlow(nil, found: found)
    }
    if let id, found.plugin(id: id) == nil {
      for rejection in found.rejections {
        console.note("rejected '\(rejection.path)': \(rejection.reason)" + (rejection.help.map { "; \($0)" } ?? ""))
      }
      let known =
        found.ids.isEmpty ? "no features were found" : "known features: \(found.ids.sorted().joined(separator: ", "))"
      let hint = Suggestion.closest(to: id, in: found.ids).map { "did you mean '\($0)'? " } ?? ""
      throw .usage("unknown feature '\(id)'", help: "\(hint)\(known) ('host list' shows where they come from)")
    }
    return try RunSession(
      console: console, plugins: found.plugins, flow: flow, config: JSONValue.object(config).serialized(),
      settings: settings, devtools: arguments.has(CommandTable.Run.devtools)
    )
    .run()
  }

  /// Reads and checks a flow file (nil: the main flow) against the features found.
  static func loadFlow(_ file: String?, found: PluginCatalogue) throws(HostError) -> Flow {
    let text: String
    if let file {
      do throws(HostError) {
        text = try RegularFile.readText(file)
      } catch {
        throw HostError("flow: \(error.message)", help: error.help ?? "check the path")
      }
    } else {
      guard found.plugin(id: HomeMenu.id) != nil else {
        throw HostError(
          "the main flow needs the home menu plugin ('\(HomeMenu.id)'), which was not found",
          help: "build it (./host builds every shipped plugin), or run one feature: 'host run ID'")
      }
      text = Flow.mainJSON
    }
    let steps = Set(found.plugins.flatMap { $0.manifest.steps.map(\.step) })
    return try Flow.load(text, file: file ?? "main", features: Set(found.ids), steps: steps)
  }

  /// `ID.KEY=VALUE` with ID one of `ids`: the feature and `KEY=VALUE`; nil for any other value.
  static func featureScoped(_ text: String, ids: [String]) -> (id: String, rest: String)? {
    guard !text.hasPrefix("{"), let dot = text.firstIndex(of: "."), let equals = text.firstIndex(of: "="),
      dot < equals
    else { return nil }
    let id = String(text[..<dot])
    guard ids.contains(id) else { return nil }
    return (id, String(text[text.index(after: dot)...]))
  }

  /// Adds a `--config` value: a JSON object, or `KEY=VALUE`.
  static func merge(config text: String, into config: inout [String: JSONValue]) throws(HostError) {
    if text.hasPrefix("{") {
      guard let object = (try? JSONValue.parse(text))?.objectValue else {
        throw .usage(
          "--config '\(text)' is not a JSON object", help: "use --config '{\"key\":\"value\"}' or --config key=value")
      }
      config.merge(object) { _, new in new }
      return
    }
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
      throw .usage(
        "--config '\(text)' is neither a JSON object nor KEY=VALUE",
        help: "e.g. --config endpoint=file:///tmp/cats.json")
    }
    let key = String(text[..<equals])
    let raw = String(text[text.index(after: equals)...])
    config[key] = (try? JSONValue.parse(raw)) ?? .string(raw)
  }
}
