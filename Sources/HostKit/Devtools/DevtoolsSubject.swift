import FeatureJSON

/// What a devtools page looks at: a running session, or a recorded journal.
///
/// Features are named by a key (their presentation number), stable while they are shown. Every
/// method may be called from several connection threads at once.
public protocol DevtoolsSubject: AnyObject, Sendable {
  /// Whether the page may change the subject (dispatch, travel, pause): a live run.
  var isLive: Bool { get }
  /// The stack of presented features as JSON: `{"frames":[{"features":[...],"focus":I}]}`.
  func stackJSON() -> String
  /// The history of feature `key`.
  func timeline(_ key: Int) throws(HostError) -> DevtoolsTimeline
  /// The view of feature `key` as the terminal shows it: now (nil), or after `seq` (without the
  /// actions in `skipping`).
  func view(_ key: Int, at seq: Int?, skipping: Set<Int>) throws(HostError) -> String
  /// Performs `command` on feature `key` (live only); returns a JSON answer.
  func perform(_ command: DevtoolsCommand, on key: Int) throws(HostError) -> String
  /// Shows the recorded journal at `path` instead (recorded only).
  func open(_ path: String) throws(HostError)
}

/// What the page asks a live run to do.
public enum DevtoolsCommand: Sendable, Equatable {
  /// An action line, parsed against the feature's catalogue as typed input is.
  case dispatch(String)
  case goto(Int)
  case undo, redo
  /// Holds the feedback loop (a regulation) of the feature; `resume` lifts it.
  case pause, resume
}

extension DevtoolsSubject {
  /// A feature's catalogue as JSON: each action's name, help and arguments.
  static func catalogueJSON(_ plugin: LoadedPlugin) -> String {
    let actions = plugin.manifest.actions.map { action -> JSONValue in
      .object([
        "type": .string(action.type), "help": .string(action.help),
        "arguments": .array(
          action.arguments.map { argument in
            .object([
              "name": .string(argument.name), "kind": .string(argument.kind.rawValue),
              "help": .string(argument.help), "required": .bool(argument.required),
            ])
          }),
      ])
    }
    return JSONValue.object(["feature": .string(plugin.id), "actions": .array(actions)]).serialized()
  }

  /// A view as JSON: its text and, when the plugin offers a structured view
  /// (`fh.structured_view/1`), its items: text lines and images (by URL, with their alt lines),
  /// which the page shows as thumbnails.
  static func viewJSON(text: String, structured: String?) -> String {
    var members: [String: JSONValue] = ["text": .string(text)]
    if let structured, let view = try? StructuredView.parse(structured) {
      members["items"] = .array(
        view.items.map { item in
          switch item {
          case .text(let line): .object(["text": .string(line)])
          case .image(let image): .object(["image": .object(["url": .string(image.url), "alt": .string(image.alt)])])
          }
        })
    }
    return JSONValue.object(members).serialized()
  }

  /// The frames of a stack as a JSON array, bottom first: each frame's features (key and id)
  /// and the index of its focus; the focus of the top frame is the one marked focused.
  static func framesJSON(_ frames: [(features: [(key: Int, id: String)], focus: Int)]) -> String {
    let text = frames.enumerated().map { index, frame in
      let features = frame.features.enumerated().map { position, feature in
        JSONValue.object([
          "key": .number(.int(Int64(feature.key))), "id": .string(feature.id),
          "focused": .bool(index == frames.count - 1 && position == frame.focus),
        ]).serialized()
      }
      return "{\"features\":[\(features.joined(separator: ","))],\"focus\":\(frame.focus)}"
    }
    return "[\(text.joined(separator: ","))]"
  }
}
