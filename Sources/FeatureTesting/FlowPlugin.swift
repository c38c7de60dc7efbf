import FeatureJSON
import HostKit

/// A plugin a `FlowTestStore` loads, and the config its features are created with.
///
///     "Counter"                                             a product of this package, or a path
///     .plugin("Kittens", config: ["endpoint": "file:///tmp/cats.json"])
public struct FlowPlugin: Sendable, ExpressibleByStringLiteral {
  /// A path to a plugin library, or the name of a library product of this package.
  public var library: String
  /// The config object of every feature of this plugin; nil: `{}`, or for the home menu, the
  /// entries the CLI would give it (every other plugin, in the order listed).
  public var config: JSONValue?

  public init(library: String, config: JSONValue? = nil) {
    self.library = library
    self.config = config
  }

  public init(stringLiteral library: String) { self.init(library: library) }

  public static func plugin(_ library: String, config: JSONValue) -> FlowPlugin {
    FlowPlugin(library: library, config: config)
  }

  /// The library's path: `library` itself when it looks like one, else the product's build path.
  var path: String { PluginPaths.resolve(library) }
}

/// The home menu's config, built as the CLI builds it (`Sources/host/HomeMenu.swift`, which
/// FeatureTesting cannot import): every plugin but the menu itself, with its name and description.
enum HomeMenuConfig {
  static let id = "home"

  static func config(offering plugins: [LoadedPlugin]) -> JSONValue {
    let entries = plugins.filter { $0.id != id }.map { plugin -> JSONValue in
      .object([
        "id": .string(plugin.id), "name": .string(plugin.manifest.name),
        "description": .string(plugin.manifest.description),
      ])
    }
    return .object(["entries": .array(entries)])
  }
}
