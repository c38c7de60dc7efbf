import FeatureJSON
import HostKit

/// The home menu of the main flow: a feature plugin (id "home") that lists the features found
/// and emits `featurePicked` when one is picked. The CLI tells it what to offer in its config;
/// the engine knows nothing of it.
enum HomeMenu {
  static let id = "home"

  /// `{"entries": [{"id", "name", "description"}, ...]}`: every plugin but the menu itself.
  static func config(offering plugins: [PluginRecord]) -> String {
    let entries = plugins.filter { $0.id != id }.map { plugin -> JSONValue in
      .object([
        "id": .string(plugin.id), "name": .string(plugin.manifest.name),
        "description": .string(plugin.manifest.description),
      ])
    }
    return JSONValue.object(["entries": .array(entries)]).serialized()
  }
}
