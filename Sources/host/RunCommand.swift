import FeatureJSON
import HostKit

/// `host run ID`: one feature in the terminal.
struct RunCommand {
  static let usage = """
    usage: host [--plugins DIR]... run ID [options]

    Runs feature ID. Type one action per line, as the feature's catalogue names it
    (`increment`, `set left=3 right=9`) or as raw JSON ({"type":"increment"}).
    Host commands start with ':'.

    options:
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
      :quit      stop the feature and leave

    When stdin is not a terminal: reads to end of input, waits for effects to settle, prints the
    final view and exits 0. A bad line prints an error on stderr and the run goes on.
    """

  let console: Console
  let global: Global

  func run(_ options: [String]) throws(HostError) -> Int32 {
    var id: String?
    var config: [String: JSONValue] = [:]
    var settings = RunSession.Settings()
    var rest = options[...]
    while let option = rest.first {
      rest = rest.dropFirst()
      func value() throws(HostError) -> String {
        guard let next = rest.first else { throw .usage("\(option) needs a value", help: Self.usageLine) }
        rest = rest.dropFirst()
        return next
      }
      switch option {
      case "-h", "--help":
        console.out(Self.usage)
        return 0
      case "--config":
        try Self.merge(config: try value(), into: &config)
        settings.configGiven = true
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
              option, ["--config", "--session", "--max-feedback-steps", "--settle-timeout", "--help"]))
        }
        guard id == nil else { throw .usage("'run' takes one feature id, got '\(id ?? "")' and '\(option)'") }
        id = option
      }
    }
    guard let id else { throw .usage("'run' needs a feature id", help: Self.usageLine) }
    let found = global.discover()
    guard let plugin = found.plugin(id: id) else {
      for rejection in found.rejections {
        console.note("rejected '\(rejection.path)': \(rejection.reason)")
      }
      let known =
        found.ids.isEmpty ? "no features were found" : "known features: \(found.ids.sorted().joined(separator: ", "))"
      let hint = Suggestion.closest(to: id, in: found.ids).map { "did you mean '\($0)'? " } ?? ""
      throw .usage("unknown feature '\(id)'", help: "\(hint)\(known) ('host list' shows where they come from)")
    }
    return try RunSession(
      console: console, plugin: plugin, config: JSONValue.object(config).serialized(), settings: settings
    )
    .run()
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
