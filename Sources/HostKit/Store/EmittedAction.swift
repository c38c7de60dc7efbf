import FeatureJSON

/// The check every action a plugin emits passes before it is queued: a JSON object with a string
/// `"type"`. What fails it is refused at the emit, so it never reaches the instance or the journal
/// (a journal line that is not JSON would stop every later restore at it).
enum EmittedAction {
  /// Why `json` is not an action, or nil when it is one.
  static func problem(in json: String) -> String? {
    // Checked, not parsed: a plugin's threads may emit hundreds of thousands a second, and a
    // worker's all pass through one listener thread. The common flat shape is scanned in place
    // (whatever the scan accepts is valid JSON with a string "type"); a NUL inside would end
    // the scan early, so the scan must have read the whole text.
    var text = json
    let flat = text.withUTF8 { utf8 in
      utf8.count <= FlatActionScan.maximumLength && !utf8.contains(0)
    }
    if flat, json.withCString({ FlatActionScan(utf8CString: $0) }) != nil { return nil }
    let type: JSONValue.MemberCheck
    do {
      type = try JSONValue.validate(json, member: "type")
    } catch {
      return "it is not JSON (\(error))"
    }
    switch type {
    case .string: return nil
    case .notAnObject: return "it is not a JSON object"
    case .missing: return "it has no \"type\""
    case .notAString: return "its \"type\" is not a string"
    }
  }

  /// The action as a message shows it: cut after 200 characters, so a huge emit stays one line.
  static func excerpt(_ json: String) -> String { Excerpt.of(json, limit: 200) }
}
