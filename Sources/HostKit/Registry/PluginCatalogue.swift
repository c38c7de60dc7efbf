/// What the plugin folders hold: the features found (not loaded) and the candidates rejected.
public struct PluginCatalogue: Sendable {
  /// A candidate that is not offered, and why.
  public struct Rejection: Sendable, Equatable {
    public var path: String
    /// One line: what is wrong with it.
    public var reason: String
    public var help: String?

    public init(path: String, reason: String, help: String? = nil) {
      self.path = path
      self.reason = reason
      self.help = help
    }
  }

  /// In search order; one per feature id (the first found wins).
  public var plugins: [PluginRecord]
  public var rejections: [Rejection]
  /// The paths the scanner was run on to make this catalogue: none when the registry was warm.
  public var scanned: [String]

  public init(plugins: [PluginRecord], rejections: [Rejection], scanned: [String] = []) {
    self.plugins = plugins
    self.rejections = rejections
    self.scanned = scanned
  }

  public func plugin(id: String) -> PluginRecord? { plugins.first { $0.id == id } }
  public var ids: [String] { plugins.map(\.id) }
}
