import FeatureTesting
import Foundation
import Testing

/// The http(s) client (FoundationNetworking, libcurl) is mapped at the first http(s) fetch only:
/// a kittens host reading a `file` catalog never maps it.
@Suite("kittens loads its http client lazily")
struct KittensHTTPLoadingTests {
  static let networking = ["libFoundationNetworking", "libcurl", "libKittensHTTP_private"]

  /// The shared objects a `host run kittens --isolation none` maps while it loads its first page
  /// and prints the state: the dynamic loader's own record of each file it maps (`LD_DEBUG=files`
  /// on stderr), dlopen'ed ones included.
  static func mappedFiles(endpoint: String) throws -> [String] {
    let result = try HostProcess.run(
      ["run", "kittens", "--isolation", "none", "--config", "endpoint=\(endpoint)"], input: ":settle\n:state\n",
      environment: ["LD_DEBUG": "files"])
    #expect(result.status == 0)
    #expect(result.stdout.contains(#""urls":["https://"#), "the first page was not loaded: \(result.stdout)")
    return result.stderr.split(separator: "\n").compactMap { line in
      guard let start = line.range(of: "file=")?.upperBound else { return nil }
      return line[start...].split(separator: " ").first.map(String.init)
    }
  }

  @Test func aFileCatalogNeverMapsTheHTTPClient() throws {
    let files = try Self.mappedFiles(endpoint: "file://\(KittenCatalogTests.sampleCatalog)")
    // the maps are the kittens host's (its plugin is there), and hold no networking library
    #expect(files.contains { $0.hasSuffix("/libKittens.so") })
    #expect(files.filter { file in Self.networking.contains { file.contains($0) } } == [])
  }

  @Test func anHTTPFetchMapsTheHTTPClientAndStillLoads() throws {
    let server = try LoopbackServer(.page(total: 3))
    defer { server.stop() }
    let files = try Self.mappedFiles(endpoint: server.endpoint)
    for library in Self.networking {
      #expect(files.contains { $0.contains(library) }, "\(library) should be mapped after an http fetch")
    }
    #expect(server.targets == ["/v1/images/search?limit=10&offset=0"])
  }

  @Test func hostListDoesNotTakeTheHTTPClientForAPlugin() throws {
    // given the client library beside the plugins
    let library = "\(PluginPaths.buildFolder)/libKittensHTTP_private.so"
    #expect(FileManager.default.fileExists(atPath: library))
    // when
    let result = try HostProcess.run(["list"])
    // then kittens is listed, and the client neither listed nor rejected
    #expect(result.status == 0)
    #expect(result.stdout.contains("libKittens.so"))
    #expect(!(result.stdout + result.stderr).contains("KittensHTTP"))
  }
}
