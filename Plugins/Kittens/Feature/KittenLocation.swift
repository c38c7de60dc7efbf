import Foundation

/// Where one page is read from: the request URL for a web endpoint, or a local file's path.
enum KittenLocation: Equatable {
  case web(URL)
  case file(path: String)

  /// The location of the page of `limit` images at `offset` from `endpoint`. A web endpoint keeps
  /// its own query items and gets `limit` and `offset` set; a file endpoint is sliced later.
  init(endpoint: String, limit: Int, offset: Int) throws(KittenLoadError) {
    guard var components = URLComponents(string: endpoint),
      let scheme = components.scheme?.lowercased()
    else {
      throw KittenLoadError("endpoint '\(endpoint)' is not a URL; use an http, https or file URL")
    }
    switch scheme {
    case "http", "https":
      guard let host = components.host, !host.isEmpty else {
        throw KittenLoadError("endpoint '\(endpoint)' names no host")
      }
      let kept = (components.queryItems ?? []).filter { $0.name != "limit" && $0.name != "offset" }
      components.queryItems =
        kept + [
          URLQueryItem(name: "limit", value: String(limit)),
          URLQueryItem(name: "offset", value: String(offset)),
        ]
      guard let url = components.url else {
        throw KittenLoadError("endpoint '\(endpoint)' does not make a valid request URL")
      }
      self = .web(url)
    case "file":
      // file://Plugins/x.json would read "Plugins" as a host and lose it from the path.
      guard components.host.map({ $0.isEmpty || $0 == "localhost" }) ?? true,
        components.path.hasPrefix("/")
      else {
        throw KittenLoadError(
          "file endpoint '\(endpoint)' must name an absolute path, like file:///tmp/cats.json")
      }
      self = .file(path: components.path)
    default:
      throw KittenLoadError(
        "endpoint '\(endpoint)' is not http, https or file (scheme '\(scheme)')")
    }
  }
}
