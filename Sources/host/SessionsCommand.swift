import Foundation
import HostKit

/// `host sessions`: lists the saved sessions; `host sessions rm NAME` removes one.
struct SessionsCommand {
  let console: Console

  /// Its arguments are read against `CommandTable.sessions`: `list` (the default) or `rm NAME`.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    let directory = try SessionDirectory.default()
    switch arguments.subcommand {
    case CommandTable.Sessions.remove.name:
      // The reader has checked NAME is there.
      let name = arguments.positionals[0]
      try directory.remove(name)
      console.out("removed session '\(name)'")
      return 0
    default:
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
    }
  }
}
