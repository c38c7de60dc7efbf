import FeatureTesting
import Foundation
import Testing

/// The built `host` binary running kittens in a pipe: stdout, stderr and exit code.
@Suite("kittens through the host CLI")
struct KittensCLITests {
  static func images(_ range: Range<Int>) -> [String] { range.map(LoopbackServer.imageURL) }

  static func quoted(_ urls: [String]) -> String { urls.map { "\"\($0)\"" }.joined(separator: ",") }

  @Test func theEndpointFromTheEnvironmentIsLoadedAndPrinted() async throws {
    // given a server with 4 images and the default limit of 10
    let server = try LoopbackServer(.page(total: 4))
    defer { server.stop() }
    // when
    let result = try await HostProcess.run(
      ["run", "kittens"], input: ":settle\n:state\n",
      environment: ["KITTENS_ENDPOINT": server.endpoint])
    // then the state holds the 4 URLs, not loading, no error; the final view follows
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let urls = Self.images(0..<4)
    let state =
      #"{"endReached":true,"isLoading":false,"loadingOffset":0,"nextOffset":4,"urls":[\#(Self.quoted(urls))]}"#
    let view =
      ["Kittens — 4 images"] + urls.enumerated().map { "  \($0.offset + 1). \($0.element)" } + [
        "end of the catalog: 'loadMore' has nothing more to load"
      ]
    #expect(result.stdout == ([state] + view).joined(separator: "\n") + "\n")
    #expect(server.targets == ["/v1/images/search?limit=10&offset=0"])
  }

  @Test func theConfigEndpointWinsOverTheEnvironment() async throws {
    let server = try LoopbackServer(.page(total: 2))
    defer { server.stop() }
    let result = try await HostProcess.run(
      ["run", "kittens", "--config", "endpoint=\(server.endpoint)", "--config", "limit=5"],
      input: ":settle\n:state\n",
      environment: ["KITTENS_ENDPOINT": "ftp://127.0.0.1/not-this-one"])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(
      result.stdout.hasPrefix(
        #"{"endReached":true,"isLoading":false,"loadingOffset":0,"nextOffset":2,"urls":["#))
    #expect(server.targets == ["/v1/images/search?limit=5&offset=0"])
  }

  @Test func theSampleCatalogWorksOffline() async throws {
    // given the shipped catalog, as the README's demo runs it
    let all = try KittenCatalogTests.sampleURLs()
    // when two pages are loaded
    let result = try await HostProcess.run(
      ["run", "kittens", "--config", "endpoint=file://\(KittenCatalogTests.sampleCatalog)"],
      input: ":settle\nloadMore\n:settle\n:state\n")
    // then
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    let state =
      #"{"endReached":false,"isLoading":false,"loadingOffset":10,"nextOffset":20,"urls":[\#(Self.quoted(Array(all[0..<20])))]}"#
    #expect(lines.first == state)
    #expect(lines.dropFirst().first == "Kittens — 20 images")
    #expect(lines.contains(" 20. \(all[19])"))
    #expect(lines.suffix(2) == ["type 'loadMore' for the next page", ""])
  }

  @Test func aFailedLoadIsShownWithTheHintToRefresh() async throws {
    let server = try LoopbackServer(.status(503))
    defer { server.stop() }
    let result = try await HostProcess.run(
      ["run", "kittens"], input: ":settle\n", environment: ["KITTENS_ENDPOINT": server.endpoint])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    #expect(
      result.stdout
        == "Kittens — 0 images\nerror: HTTP 503 from \(server.endpoint)?limit=10&offset=0\ntype 'refresh' to try again\n"
    )
  }

  @Test func aBadConfigValueIsRefusedWithItsName() async throws {
    let result = try await HostProcess.run(["run", "kittens", "--config", "limit=0"])
    #expect(result.status == 1)
    #expect(result.stdout == "")
    #expect(result.stderr.contains("config 'limit' must be within 1...100, got 0"))
  }
}
