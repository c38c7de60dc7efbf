import FeatureJSON

/// The check every action a plugin emits passes before it is queued: a JSON object with a string
/// `"type"`. What fails it is refused at the emit, so it never reaches the instance or the journal
/// (a journal line that is not JSON would stop every later restore at it).
enum EmittedAction {
  /// Why `json` is not an action, or nil when it is one.
  static func problem(in json: String) -> String? {
    let value: JSONValue
    do {
      value = try JSONValue.parse(json)
    } catch {
      return "it is not JSON (\(error))"
    }
    guard let members = value.objectValue else { return "it is not a JSON object" }
    guard let type = members["type"] else { return "it has no \"type\"" }
    guard type.stringValue != nil else { return "its \"type\" is not a string" }
    return nil
  }

  /// The action as a message shows it: cut after 200 characters, so a huge emit stays one line.
  static func excerpt(_ json: String) -> String { Excerpt.of(json, limit: 200) }
}
