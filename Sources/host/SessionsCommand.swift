import Foundation
import HostKit

/// `host sessions`: lists the saved sessions; `host sessions rm NAME` removes one.
struct SessionsCommand {
  static let usage = """
    usage: host sessions [list]
           host sessions rm NAME

    Sessions are runs journaled with 'host run ID --session NAME', kept in
    $XDG_STATE_HOME/featurehost (default ~/.local/state/featurehost). 'list' prints one line per
    session: NAME  FEATURE  ACTIONS  LAST-CHANGE (UTC). 'rm' removes a session's journal.
    'host replay' takes a journal file: the PATH column of 'list' shows where each one is.
    """

  let console: Console

  func run(_ options: [String]) throws(HostError) -> Int32 {
    if options.contains("-h") || options.contains("--help") {
      console.out(Self.usage)
      return 0
    }
    let directory = try SessionDirectory.default()
    switch options.first {
    case nil, "list":
      guard options.count <= 1 else { throw .usage("'sessions list' takes no arguments") }
      let sessions = try directory.list()
      if sessions.isEmpty {
        console.note("no sessions yet; start one with 'host run ID --session NAME'")
        return 0
      }
      let formatter = ISO8601DateFormatter()
      let nameWidth = sessions.map(\.name.count).max() ?? 0
      let featureWidth = sessions.map { ($0.feature ?? "?").count }.max() ?? 0
      for session in sessions {
        var line =
          "\(session.name.padding(toLength: nameWidth))  \((session.feature ?? "?").padding(toLength: featureWidth))"
          + "  \(String(session.actions).leftPadded(to: 8))  \(formatter.string(from: session.lastChange))  \(session.path)"
        if let problem = session.problem { line += "  (\(problem))" }
        console.out(line)
      }
      return 0
    case "rm", "remove":
      guard options.count == 2 else {
        throw .usage("'sessions rm' takes one session name", help: "host sessions rm NAME")
      }
      try directory.remove(options[1])
      console.out("removed session '\(options[1])'")
      return 0
    case let other?:
      throw .usage(
        "unknown sessions command '\(other)'",
        help: HostCLI.suggest(other, ["list", "rm"]) ?? "use 'host sessions' or 'host sessions rm NAME'")
    }
  }
}
