import FeatureJSON
import HostKit

/// `host run ID`: one feature in the terminal; `host run --flow FILE` and `host` alone: a flow.
struct RunCommand {
  static let usage = """
    usage: host [--plugins DIR]... run ID [options]
           host [--plugins DIR]... run --flow FILE [options]
           host [--plugins DIR]...                      (the main flow: the home menu)

    Runs feature ID, or a flow: features presented one over another as the steps they emit lead.
    Type one action per line, as the focused feature's catalogue names it (`increment`,
    `set left=3 right=9`) or as raw JSON ({"type":"increment"}). Host commands start with ':'.

    options:
      --flow FILE                 run the flow in FILE (JSON: see README, "Flows") instead of one
                                  feature
      --log-navigation            print 'will navigate' / 'did navigate flow=NAME step=STEP' lines
                                  on stderr
      --config JSON|KEY=VALUE     the feature's config: a JSON object, or one setting per flag
                                  (repeatable; a VALUE that is valid JSON is taken as JSON)
      --session NAME              journal the run as session NAME; if it exists, restore it
                                  first (the feature sees 'restored'); 'host sessions' lists them
      --max-feedback-steps N      feedback actions in a row before the runaway guard pauses
                                  the feature (default 10000)
      --settle-timeout SECONDS    how long to wait for effects at end of input or :settle
                                  (default 10)

    commands while running:
      :help      the feature's actions and these commands
      :state     print the state as one line of JSON
      :view      print the current view
      :settle    wait (bounded) until nothing is queued and no effect is in flight
      :resume    go on after the runaway guard paused the feature
      :history   the actions that made the current state, numbered, with their source
      :undo      back to the state before the last action   :redo   forward again
      :goto SEQ  the state after action SEQ
      :save FILE write the state as JSON   :load FILE   replace the state with a saved one
      :open ID   present feature ID over the current one       :back   go back to the one before
      :focus ID  send input to ID, when several features are shown side by side
      :quit      stop every feature and leave

    When stdin is not a terminal: reads to end of input, waits for effects to settle, prints the
    final view and exits 0. A bad line prints an error on stderr and the run goes on.
    """

  let console: Console
  let global: Global
  /// `host` with no command: the main flow.
  var mainFlow = false

  init(console: Console, global: Global, mainFlow: Bool = false) {
    self.console = console
    self.global = global
    self.mainFlow = mainFlow
  }

  func run(_ options: [String]) throws(HostError) -> Int32 {
    var id: String?
    var flowFile: String?
    var config: [String: JSONValue] = [:]
    var settings = RunSession.Settings()
    var arguments = ArgumentReader(options, help: Self.usageLine)
    while let option = arguments.next() {
      func value() throws(HostError) -> String { try arguments.value(of: option) }
      switch option {
      case "-h", "--help":
        console.out(Self.usage)
        return 0
      case "--config":
        try Self.merge(config: try value(), into: &config)
        settings.configGiven = true
      case "--flow":
        flowFile = try value()
      case "--log-navigation":
        settings.logsNavigation = true
      case "--session":
        let name = try value()
        do {
          try SessionDirectory.checkName(name)
        } catch {
          throw .usage(error.message, help: error.help)
        }
        settings.session = name
      case "--max-feedback-steps":
        let text = try value()
        guard let steps = Int(text), steps > 0 else {
          throw .usage("--max-feedback-steps '\(text)' must be a whole number above 0")
        }
        settings.maxFeedbackSteps = steps
      case "--settle-timeout":
        let text = try value()
        guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
          throw .usage("--settle-timeout '\(text)' must be a number of seconds, 0 or more")
        }
        settings.settleTimeout = .milliseconds(Int64(seconds * 1000))
      default:
        if option.hasPrefix("-") {
          throw .usage(
            "unknown option '\(option)' for 'run'",
            help: HostCLI.suggest(
              option,
              [
                "--config", "--session", "--flow", "--log-navigation", "--max-feedback-steps", "--settle-timeout",
                "--help",
              ]))
        }
        guard id == nil else { throw .usage("'run' takes one feature id, got '\(id ?? "")' and '\(option)'") }
        id = option
      }
    }
    let found = global.discover()
    let flow: Flow
    if let flowFile {
      guard id == nil else { throw .usage("'run' takes a feature id or --flow FILE, not both") }
      flow = try Self.loadFlow(flowFile, found: found)
    } else if let id {
      flow = .single(id)
    } else if mainFlow {
      flow = try Self.loadFlow(nil, found: found)
    } else {
      throw .usage("'run' needs a feature id", help: Self.usageLine)
    }
    if let id, found.plugin(id: id) == nil {
      for rejection in found.rejections {
        console.note("rejected '\(rejection.path)': \(rejection.reason)")
      }
      let known =
        found.ids.isEmpty ? "no features were found" : "known features: \(found.ids.sorted().joined(separator: ", "))"
      let hint = Suggestion.closest(to: id, in: found.ids).map { "did you mean '\($0)'? " } ?? ""
      throw .usage("unknown feature '\(id)'", help: "\(hint)\(known) ('host list' shows where they come from)")
    }
    return try RunSession(
      console: console, plugins: found.plugins, flow: flow, config: JSONValue.object(config).serialized(),
      settings: settings
    )
    .run()
  }

  /// Reads and checks a flow file (nil: the main flow) against the features found.
  static func loadFlow(_ file: String?, found: PluginDiscovery.Result) throws(HostError) -> Flow {
    let text: String
    if let file {
      do {
        text = try String(contentsOfFile: file, encoding: .utf8)
      } catch {
        throw HostError("cannot read flow '\(file)': \(error.localizedDescription)", help: "check the path")
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

  private static let usageLine = "usage: host run ID [--config JSON|KEY=VALUE]... (see 'host run --help')"

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
