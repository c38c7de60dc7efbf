import FeatureJSON
import FeatureKit

/// Where kitten pages come from: an endpoint that answers like thecatapi's `/v1/images/search`
/// (a JSON array of objects with a `url`), asked for `limit` images from `offset`.
///
/// `http` and `https` endpoints are fetched with a GET; `file` endpoints read a local JSON file of
/// the same shape and slice it, for offline use. Any other endpoint fails at load time, so the
/// person sees why in the view.
public struct KittenCatalog: Sendable, Equatable {
  public static let defaultEndpoint = "https://api.thecatapi.com/v1/images/search"
  public static let defaultLimit = 10
  public static let limits = 1...100
  public static let defaultTimeout = 10.0
  /// The config keys this feature reads; any other key is refused.
  public static let settings = ["endpoint", "limit", "timeout"]

  /// The endpoint as configured; checked when a page is loaded.
  public var endpoint: String
  /// Images per page, within `limits`.
  public var limit: Int
  /// Seconds a whole request may take, above 0.
  public var timeout: Double

  public init(
    endpoint: String = defaultEndpoint, limit: Int = defaultLimit, timeout: Double = defaultTimeout
  ) {
    self.endpoint = endpoint
    self.limit = limit
    self.timeout = timeout
  }

  /// Reads `endpoint` (else env `KITTENS_ENDPOINT`), `limit` and `timeout`.
  /// Throws a `FeatureError` naming the setting and its value when one is unusable.
  public init(config: FeatureConfig) throws {
    if let unknown = config.values.keys.sorted().first(where: { !Self.settings.contains($0) }) {
      throw FeatureError(
        "unknown config '\(unknown)'; kittens reads \(Self.settings.joined(separator: ", "))")
    }
    endpoint = try config.string("endpoint", environment: "KITTENS_ENDPOINT") ?? Self.defaultEndpoint
    limit = try config.integer("limit") ?? Self.defaultLimit
    guard Self.limits.contains(limit) else {
      throw FeatureError("config 'limit' must be within \(Self.limits), got \(limit)")
    }
    timeout = try config.number("timeout") ?? Self.defaultTimeout
    guard timeout > 0, timeout <= 86_400 else {
      let given = config.values["timeout"]?.serialized() ?? "\(timeout)"
      throw FeatureError("config 'timeout' must be a number of seconds above 0 and at most 86400, got \(given)")
    }
  }

  /// The images of the page at `offset`: at most `limit` URLs (fewer at the end of the catalog).
  /// Throws when the endpoint is unusable, does not answer in time, or answers something else.
  public func page(at offset: Int) async throws(KittenLoadError) -> [String] {
    let location = try KittenLocation(endpoint: endpoint, limit: limit, offset: offset)
    switch location {
    case .web(let url):
      let body = try await KittenHTTP.get(url, timeout: timeout)
      return try KittenPageDecoder(source: url.absoluteString).urls(from: body)
    case .file(let path):
      let all = try KittenPageDecoder(source: "file://\(path)").urls(
        from: try KittenFile.read(path))
      guard offset < all.count else { return [] }
      return Array(all[offset..<min(all.count, offset + limit)])
    }
  }
}
