import FeatureJSON
import FeatureKit
import Foundation
import KittensFeature
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Config parsing and the data source: endpoints, request URLs, the shipped offline catalog.
@Suite("Kittens catalog")
struct KittenCatalogTests {
  /// The sample catalog shipped for offline use.
  static let sampleCatalog = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Plugins/Kittens/catalog.json").path

  /// The URLs of the sample catalog, read independently of the feature.
  static func sampleURLs() throws -> [String] {
    let text = try String(contentsOfFile: sampleCatalog, encoding: .utf8)
    return try JSONValue.parse(text).arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
  }

  @Test(
    .enabled(if: getenv("KITTENS_ENDPOINT") == nil, "KITTENS_ENDPOINT would replace the default"))
  func anEmptyConfigUsesTheDefaults() throws {
    let catalog = try KittenCatalog(config: FeatureConfig())
    #expect(
      catalog
        == KittenCatalog(
          endpoint: "https://api.thecatapi.com/v1/images/search", limit: 10, timeout: 10))
  }

  @Test func configValuesAreRead() throws {
    let config = FeatureConfig(values: [
      "endpoint": "file:///tmp/cats.json", "limit": "25", "timeout": 0.25,
    ])
    #expect(
      try KittenCatalog(config: config)
        == KittenCatalog(endpoint: "file:///tmp/cats.json", limit: 25, timeout: 0.25))
  }

  struct BadConfig: CustomTestStringConvertible, Sendable {
    let id: String
    let values: [String: JSONValue]
    let message: String
    var testDescription: String { id }
  }

  static let badConfigs: [BadConfig] = [
    BadConfig(
      id: "limit-zero", values: ["limit": 0],
      message: "config 'limit' must be within 1...100, got 0"),
    BadConfig(
      id: "limit-too-big", values: ["limit": 101],
      message: "config 'limit' must be within 1...100, got 101"),
    BadConfig(
      id: "limit-not-a-number", values: ["limit": "ten"],
      message: "config 'limit' must be an integer, got \"ten\""),
    BadConfig(
      id: "limit-fraction", values: ["limit": 2.5],
      message: "config 'limit' must be an integer, got 2.5"),
    BadConfig(
      id: "timeout-zero", values: ["timeout": 0],
      message: "config 'timeout' must be a number of seconds above 0 and at most 86400, got 0"),
    BadConfig(
      id: "timeout-negative", values: ["timeout": -1],
      message: "config 'timeout' must be a number of seconds above 0 and at most 86400, got -1"),
    BadConfig(
      id: "timeout-over-a-day", values: ["timeout": 100_000],
      message: "config 'timeout' must be a number of seconds above 0 and at most 86400, got 100000"),
    BadConfig(
      id: "timeout-words", values: ["timeout": "soon"],
      message: "config 'timeout' must be a number, got \"soon\""),
    BadConfig(
      id: "endpoint-number", values: ["endpoint": 42],
      message: "config 'endpoint' must be a string, got 42"),
    BadConfig(
      id: "unknown-setting", values: ["limt": 3],
      message: "unknown config 'limt'; kittens reads endpoint, limit, timeout"),
  ]

  @Test("a bad config value is refused and named", arguments: badConfigs)
  func badConfigIsRefused(_ bad: BadConfig) {
    let error = #expect(throws: FeatureError.self) {
      _ = try KittenCatalog(config: FeatureConfig(values: bad.values))
    }
    #expect(error?.message == bad.message)
  }

  struct BadEndpoint: CustomTestStringConvertible, Sendable {
    let id: String
    let endpoint: String
    let reason: String
    var testDescription: String { id }
  }

  static let badEndpoints: [BadEndpoint] = [
    BadEndpoint(
      id: "ftp", endpoint: "ftp://127.0.0.1/cats.json",
      reason: "endpoint 'ftp://127.0.0.1/cats.json' is not http, https or file (scheme 'ftp')"),
    BadEndpoint(
      id: "no-scheme", endpoint: "api.thecatapi.com/v1/images/search",
      reason:
        "endpoint 'api.thecatapi.com/v1/images/search' is not a URL; use an http, https or file URL"
    ),
    BadEndpoint(
      id: "http-without-host", endpoint: "http:///cats",
      reason: "endpoint 'http:///cats' names no host"),
    BadEndpoint(
      id: "relative-file", endpoint: "file://Plugins/Kittens/catalog.json",
      reason:
        "file endpoint 'file://Plugins/Kittens/catalog.json' must name an absolute path, like file:///tmp/cats.json"
    ),
    BadEndpoint(
      id: "missing-file", endpoint: "file:///nonexistent/cats.json",
      reason: "cannot read file:///nonexistent/cats.json: no such file"),
    BadEndpoint(
      id: "folder", endpoint: "file:///tmp", reason: "cannot read file:///tmp: it is a folder"),
  ]

  @Test(
    "an endpoint that cannot be read fails the load with a reason naming it",
    arguments: badEndpoints)
  func badEndpointsFailTheLoad(_ bad: BadEndpoint) async {
    let catalog = KittenCatalog(endpoint: bad.endpoint, limit: 3, timeout: 1)
    let error = await #expect(throws: KittenLoadError.self) { _ = try await catalog.page(at: 0) }
    #expect(error?.reason == bad.reason)
  }

  @Test func theSampleCatalogIsSlicedByLimitAndOffset() async throws {
    let all = try Self.sampleURLs()
    #expect(all.count == 42)
    #expect(
      all.allSatisfy { $0.hasPrefix("https://cdn2.thecatapi.com/images/") && $0.hasSuffix(".jpg") })
    #expect(Set(all).count == all.count)
    let catalog = KittenCatalog(endpoint: "file://\(Self.sampleCatalog)", limit: 10)
    #expect(try await catalog.page(at: 0) == Array(all[0..<10]))
    #expect(try await catalog.page(at: 40) == Array(all[40..<42]))
    #expect(try await catalog.page(at: 42) == [])
  }

  @Test func theEndpointKeepsItsOwnQueryItemsAndGetsLimitAndOffset() async throws {
    // given an endpoint with its own query, including a stale limit
    let server = try LoopbackServer(.page(total: 10))
    defer { server.stop() }
    let catalog = KittenCatalog(
      endpoint: "\(server.endpoint)?breed_ids=beng&limit=99&size=small", limit: 4)
    // when
    let urls = try await catalog.page(at: 4)
    // then
    #expect(urls == (4..<8).map(LoopbackServer.imageURL))
    #expect(server.targets == ["/v1/images/search?breed_ids=beng&size=small&limit=4&offset=4"])
  }

  @Test func aReasonIsAlwaysOneLine() {
    #expect(KittenLoadError("HTTP 500\nfrom\r\nthere").reason == "HTTP 500 from there")
  }
}
