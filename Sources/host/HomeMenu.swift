import FeatureJSON
import HostKit

/// The home menu of the main flow: a feature plugin (id "home") that lists the features found
/// and emits `featurePicked` when one is picked. The CLI tells it what to offer in its config;
/// the engine knows nothing of it.
enum HomeMenu {
  static let id = "home"

  /// The shipped features, listed first and in this order: what a newcomer came to try.
  static let shippedFirst = ["counter", "kittens", "levels"]

  /// `{"entries": [{"id", "name", "description"}, ...]}`: every plugin but the menu itself, in
  /// `ordered`'s order.
  static func config(offering plugins: [PluginRecord]) -> String {
    let entries = ordered(plugins.filter { $0.id != id }).map { plugin -> JSONValue in
      .object([
        "id": .string(plugin.id), "name": .string(plugin.manifest.name),
        "description": .string(plugin.manifest.description),
      ])
    }
    return JSONValue.object(["entries": .array(entries)]).serialized()
  }

  /// The shipped features first (`shippedFirst`), then the others by id: a stable order, not the
  /// order the plugin folders happen to be searched in.
  static func ordered(_ plugins: [PluginRecord]) -> [PluginRecord] {
    plugins.sorted { left, right in
      let (l, r) = (shippedFirst.firstIndex(of: left.id), shippedFirst.firstIndex(of: right.id))
      switch (l, r) {
      case (let l?, let r?): return l < r
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil): return left.id < right.id
      }
    }
  }
}

extension HomeMenu {
  /// The step the menu emits when an entry is picked.
  static let pickedStep = "featurePicked"

  /// A line typed at the menu as its action: a number or an id alone (`1`, `counter`) or after
  /// `pick` (`pick 1`) is `pick entry=...`; anything else is left as it is.
  static func action(for line: String) -> String {
    let words = line.split(separator: " ", omittingEmptySubsequences: true)
    func isEntry(_ word: Substring) -> Bool {
      !word.contains("=") && !word.hasPrefix("{") && !word.hasPrefix(":") && !word.hasPrefix("\"")
    }
    switch words.count {
    case 1 where words[0] != "pick" && isEntry(words[0]): return "pick entry=\(words[0])"
    case 2 where words[0] == "pick" && isEntry(words[1]): return "pick entry=\(words[1])"
    default: return line
    }
  }

  /// `flow` with the menu's picks opening the feature picked, unless the flow maps them itself:
  /// so the menu works under `host run home` and `:open home` as in the main flow.
  static func withPicks(_ flow: Flow) -> Flow {
    guard flow.rules[pickedStep] == nil else { return flow }
    var flow = flow
    flow.rules[pickedStep] = .push(.field("feature"))
    return flow
  }
}
