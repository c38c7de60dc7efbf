import FeatureJSON
import FeatureTesting
import HostKit
import KittensFeature
import Testing

/// The real libKittens.so driven through HostKit's `Store` by FeatureTesting's exhaustive
/// `FeatureTestStore`, against a loopback server: every state change and every action the load
/// effect emits is asserted.
@Suite("Kittens in the store")
struct KittensStoreTests {
  typealias State = KittensFeature.State

  /// A started store on the kittens plugin (`state` is a state to restore).
  static func kittens(config: JSONValue, restoring state: State? = nil) async throws -> FeatureTestStore {
    try await FeatureTestStore(
      plugin: "Kittens", config: config, restoring: try state.map { try JSONValueEncoder().encode($0) })
  }

  static func config(endpoint: String, limit: Int = 3, timeout: Double? = nil) -> JSONValue {
    var config: [String: JSONValue] = ["endpoint": .string(endpoint), "limit": .number(.int(Int64(limit)))]
    if let timeout { config["timeout"] = .number(.double(timeout)) }
    return .object(config)
  }

  static func images(_ range: Range<Int>) -> [String] { range.map(LoopbackServer.imageURL) }

  @Test func theManifestListsOnlyRefreshAndLoadMore() throws {
    let manifest = try PluginLoader.load(PluginPaths.library("Kittens")).manifest
    #expect(manifest.id == "kittens")
    #expect(manifest.actions.map(\.type) == ["refresh", "loadMore"])
    #expect(manifest.actions.allSatisfy { !$0.help.isEmpty && $0.arguments.isEmpty })
  }

  @Test func theManifestDeclaresTheEndpointsPortAndFile() throws {
    // given the plugin's manifest, as the host reads it from the .so
    let needs = try PluginLoader.load(PluginPaths.library("Kittens")).manifest.needs
    // then it needs what its endpoint names, read as the catalog reads it
    let endpoint = Needs.Target.setting(
      name: "endpoint", environment: "KITTENS_ENDPOINT", default: KittenCatalog.defaultEndpoint)
    #expect(needs == Needs(connect: [endpoint], read: [endpoint]))
    // by default the API's https port; a file endpoint its file; a loopback endpoint its port
    #expect(needs.grants(config: [:], environment: [:]).connectPorts == [443])
    let file = needs.grants(config: [:], environment: ["KITTENS_ENDPOINT": "file:///srv/cats.json"])
    #expect(file.readPaths == ["/srv/cats.json"] && file.connectPorts == [])
    let local = needs.grants(config: ["endpoint": "http://127.0.0.1:8123/v1"], environment: [:])
    #expect(local.connectPorts == [8123] && local.readPaths == [])
  }

  @Test func theFirstPageLoadsOnCreated() async throws {
    // given a catalog of 5
    let server = try LoopbackServer(.page(total: 5))
    defer { server.stop() }
    // when the feature starts
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint))
    #expect(try Self.decode(store.initialState) == State(isLoading: true))
    // then the first page of 3 arrives from the load effect and is shown
    await store.receive(
      .encoding(KittensFeature.Action.pageLoaded(offset: 0, urls: Self.images(0..<3))),
      assert: .json(
        #"{"endReached":false,"isLoading":false,"loadingOffset":0,"nextOffset":3,"urls":["#
          + #""https://cdn2.thecatapi.com/images/t0.jpg","https://cdn2.thecatapi.com/images/t1.jpg","#
          + #""https://cdn2.thecatapi.com/images/t2.jpg"]}"#))
    #expect(server.targets == ["/v1/images/search?limit=3&offset=0"])
    #expect(store.history.map(\.type) == ["created", "pageLoaded"])
    #expect(store.history.map(\.source) == [.lifecycle, .effect])
    #expect(
      try store.view
        == """
        Kittens — 3 images
          1. https://cdn2.thecatapi.com/images/t0.jpg
          2. https://cdn2.thecatapi.com/images/t1.jpg
          3. https://cdn2.thecatapi.com/images/t2.jpg
        type 'loadMore' for the next page
        """)
    #expect(await store.stop() == StopReport(unapplied: 0, late: 0))
    await store.finish()
  }

  @Test func loadMoreAppendsTheNextPageFromTheRightOffset() async throws {
    let server = try LoopbackServer(.page(total: 7))
    defer { server.stop() }
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint))
    await store.receive("pageLoaded", assert: .encoding(State(urls: Self.images(0..<3))))
    // when
    await store.send("loadMore", assert: .encoding(State(urls: Self.images(0..<3), isLoading: true, loadingOffset: 3)))
    // then
    await store.receive(
      .encoding(KittensFeature.Action.pageLoaded(offset: 3, urls: Self.images(3..<6))),
      assert: .encoding(State(urls: Self.images(0..<6), loadingOffset: 3)))
    #expect(
      server.targets == [
        "/v1/images/search?limit=3&offset=0", "/v1/images/search?limit=3&offset=3",
      ])
    #expect(store.history.map(\.type) == ["created", "pageLoaded", "loadMore", "pageLoaded"])
    await store.finish()
  }

  @Test func aShortPageMarksTheEndAndLoadMoreThenAsksForNothing() async throws {
    let server = try LoopbackServer(.page(total: 5))
    defer { server.stop() }
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint))
    await store.receive("pageLoaded", assert: .encoding(State(urls: Self.images(0..<3))))
    await store.send("loadMore", assert: .encoding(State(urls: Self.images(0..<3), isLoading: true, loadingOffset: 3)))
    await store.receive(
      "pageLoaded", assert: .encoding(State(urls: Self.images(0..<5), loadingOffset: 3, endReached: true)))
    // when the end was reached: nothing changes and nothing more is asked for
    await store.send("loadMore")
    // then the view says so
    #expect(await store.settle() == .settled)
    #expect(
      try Self.decode(store.state) == State(urls: Self.images(0..<5), loadingOffset: 3, endReached: true))
    #expect(server.targets.count == 2)
    #expect(
      store.history.map(\.type) == ["created", "pageLoaded", "loadMore", "pageLoaded", "loadMore"])
    #expect(
      try store.view.hasSuffix(
        "  5. https://cdn2.thecatapi.com/images/t4.jpg\nend of the catalog: 'loadMore' has nothing more to load"
      ))
    await store.finish()
  }

  @Test func refreshReplacesTheListFromOffsetZero() async throws {
    // given two pages shown, and a catalog that has changed since
    let freshBody =
      #"[{"id":"n1","url":"https://cdn2.thecatapi.com/images/n1.jpg"},"#
      + #"{"id":"n2","url":"https://cdn2.thecatapi.com/images/n2.jpg"}]"#
    let server = try LoopbackServer(.page(total: 9), .page(total: 9), .body(freshBody))
    defer { server.stop() }
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint))
    await store.receive("pageLoaded", assert: .encoding(State(urls: Self.images(0..<3))))
    await store.send("loadMore", assert: .encoding(State(urls: Self.images(0..<3), isLoading: true, loadingOffset: 3)))
    await store.receive("pageLoaded", assert: .encoding(State(urls: Self.images(0..<6), loadingOffset: 3)))
    // when
    await store.send("refresh", assert: .encoding(State(urls: Self.images(0..<6), isLoading: true)))
    // then
    let fresh = [
      "https://cdn2.thecatapi.com/images/n1.jpg", "https://cdn2.thecatapi.com/images/n2.jpg",
    ]
    await store.receive(
      .encoding(KittensFeature.Action.pageLoaded(offset: 0, urls: fresh)),
      assert: .encoding(State(urls: fresh, endReached: true)))
    #expect(server.targets.last == "/v1/images/search?limit=3&offset=0")
    #expect(
      store.history.map(\.type) == [
        "created", "pageLoaded", "loadMore", "pageLoaded", "refresh", "pageLoaded",
      ])
    await store.finish()
  }

  @Test func aRestoredFeatureKeepsItsURLsAndDoesNotReload() async throws {
    let server = try LoopbackServer(.page(total: 9))
    defer { server.stop() }
    // given a snapshot taken while a page was loading
    let saved = State(urls: Self.images(0..<3), isLoading: true, loadingOffset: 3)
    // when
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint), restoring: saved)
    // then
    #expect(try Self.decode(store.initialState) == State(urls: Self.images(0..<3), loadingOffset: 3))
    #expect(await store.settle() == .settled)
    #expect(store.history.map(\.type) == ["restored"])
    #expect(server.targets == [])
    await store.finish()
  }

  // MARK: - Failures

  struct FailureCase: CustomTestStringConvertible, Sendable {
    enum Endpoint: Sendable {
      /// The loopback server, answering with this.
      case server(LoopbackServer.Reply)
      /// A port on 127.0.0.1 that refuses connections.
      case refusedPort
      /// This endpoint, as it is.
      case fixed(String)
    }

    let id: String
    let endpoint: Endpoint
    var timeout: Double?
    /// The expected reason, given the request URL.
    let reason: @Sendable (String) -> String
    var testDescription: String { id }
  }

  static let failures: [FailureCase] = [
    FailureCase(
      id: "refused-port", endpoint: .refusedPort,
      reason: { "cannot connect to \($0) (refused or unreachable)" }),
    FailureCase(
      id: "timeout", endpoint: .server(.hold), timeout: 0.5,
      reason: { "no answer from \($0) within 0.5 s" }),
    FailureCase(id: "http-503", endpoint: .server(.status(503)), reason: { "HTTP 503 from \($0)" }),
    FailureCase(id: "http-404", endpoint: .server(.status(404)), reason: { "HTTP 404 from \($0)" }),
    FailureCase(
      id: "invalid-json", endpoint: .server(.body("<html>cats</html>")),
      reason: { "invalid JSON from \($0) at byte 0: unexpected '<', expected a JSON value" }),
    FailureCase(
      id: "wrong-shape", endpoint: .server(.body(#"{"message":"no cats today"}"#)),
      reason: { #"expected a JSON array of images from \#($0), got {"message":"no cats today"}"# }),
    FailureCase(
      id: "entry-not-an-object",
      endpoint: .server(.body(#"["https://cdn2.thecatapi.com/images/a.jpg"]"#)),
      reason: {
        #"images[0] from \#($0) is not an object: "https://cdn2.thecatapi.com/images/a.jpg""#
      }),
    FailureCase(
      id: "url-missing",
      endpoint: .server(.body(#"[{"id":"a","url":"https://x/a.jpg"},{"id":"b"}]"#)),
      reason: { "images[1] from \($0) has no url" }),
    FailureCase(
      id: "url-not-a-string", endpoint: .server(.body(#"[{"id":"a","url":42}]"#)),
      reason: { "images[0].url from \($0) is not a string: 42" }),
    FailureCase(
      id: "ftp-endpoint", endpoint: .fixed("ftp://127.0.0.1/cats.json"),
      reason: { _ in
        "endpoint 'ftp://127.0.0.1/cats.json' is not http, https or file (scheme 'ftp')"
      }),
  ]

  @Test("a failed refresh ends in the error state with the URLs kept", arguments: failures)
  func aFailedRefreshKeepsTheURLs(_ failure: FailureCase) async throws {
    // given three URLs shown, restored from a session
    var server: LoopbackServer?
    var refusing: RefusingPort?
    let endpoint: String
    switch failure.endpoint {
    case .server(let reply):
      let started = try LoopbackServer(reply)
      server = started
      endpoint = started.endpoint
    case .refusedPort:
      let port = try RefusingPort()
      refusing = port
      endpoint = "http://127.0.0.1:\(port.port)/v1/images/search"
    case .fixed(let fixed):
      endpoint = fixed
    }
    defer {
      server?.stop()
      refusing?.close()
    }
    let shown = State(urls: Self.images(0..<3))
    let config = Self.config(endpoint: endpoint, timeout: failure.timeout)
    let store = try await Self.kittens(config: config, restoring: shown)
    // when
    await store.send("refresh", assert: .encoding(State(urls: Self.images(0..<3), isLoading: true)))
    // then
    let reason = failure.reason("\(endpoint)?limit=3&offset=0")
    await store.receive(
      .encoding(KittensFeature.Action.loadFailed(reason: reason)),
      assert: .encoding(State(urls: Self.images(0..<3), error: reason)))
    #expect(store.history.map(\.type) == ["restored", "refresh", "loadFailed"])
    let view = try store.view.split(separator: "\n").map(String.init)
    #expect(
      view.prefix(3) == ["Kittens — 3 images", "error: \(reason)", "type 'refresh' to try again"])
    if case .server(.hold) = failure.endpoint {
      // the timed-out request was given up, not left open
      #expect(await server?.clientClosed() == true)
    }
    await store.finish()
  }

  // MARK: - Cancellation

  @Test func refreshWhileLoadingRestartsTheLoad() async throws {
    // given a first request the server holds open
    let server = try LoopbackServer(.hold, .page(total: 5))
    defer { server.stop() }
    // a client timeout far beyond the test: however long a busy machine stalls the test, the held
    // request must not turn into a failure
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint, timeout: 3600))
    #expect(await server.requestsArrived(1))
    // when: still loading from offset 0, so the state does not change
    await store.send("refresh")
    // then the held request is closed by the client and a new one answers
    await store.receive("pageLoaded", assert: .encoding(State(urls: Self.images(0..<3))))
    #expect(await server.clientClosed())
    #expect(
      server.targets == [
        "/v1/images/search?limit=3&offset=0", "/v1/images/search?limit=3&offset=0",
      ])
    #expect(server.closedByClient == 1)
    #expect(store.history.map(\.type) == ["created", "refresh", "pageLoaded"])
    await store.finish()
  }

  @Test func loadMoreWhileLoadingIsIgnored() async throws {
    let server = try LoopbackServer(.hold)
    defer { server.stop() }
    // a client timeout far beyond the test: however long a busy machine stalls the test, the held
    // request must not turn into a failure
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint, timeout: 3600))
    #expect(await server.requestsArrived(1))
    // when
    await store.send("loadMore", assert: .encoding(State(isLoading: true)))
    // then
    #expect(store.history.map(\.type) == ["created", "loadMore"])
    #expect(server.targets.count == 1)
    // the held request is still in flight: stopping cancels it
    await store.stop()
    await store.finish()
  }

  @Test func stopCancelsTheRequestInFlight() async throws {
    // given a request the server holds open
    let server = try LoopbackServer(.hold)
    defer { server.stop() }
    let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint, timeout: 3600))
    #expect(await server.requestsArrived(1))
    #expect(store.effectsInFlight == 1)
    // when
    let report = await store.stop()
    // then the server sees the connection closed, and nothing late reached the reducer
    #expect(await server.clientClosed())
    #expect(report == StopReport(unapplied: 0, late: 0))
    // FeatureKit waits up to 2 s for effects that ignore cancellation, and says so; this one ends.
    #expect(!store.logs.contains { $0.message.contains("left behind") }, "\(store.logs)")
    #expect(store.history.map(\.type) == ["created"])
    #expect(try Self.decode(store.state) == State(isLoading: true))
    #expect(store.history.filter(\.refused).isEmpty)
    await store.finish()
  }

  @Test(.timeLimit(.minutes(2)))
  func aRequestCancelledAtAnyMomentEndsAndTheStoreStops() async throws {
    // given a server that holds every request open
    let server = try LoopbackServer(.hold)
    defer { server.stop() }
    for round in 0..<60 {
      let store = try await Self.kittens(config: Self.config(endpoint: server.endpoint, timeout: 3600))
      // when the store stops at once, or once its request reached the server: cancelled before the
      // request starts, while it connects, or while it waits for the answer
      if round % 2 == 1 { #expect(await server.requestsArrived(round / 2 + 1)) }
      let report = await store.stop()
      // then the cancel ends the request (a cancel that waited on its own request hung here)
      #expect(report == StopReport(unapplied: 0, late: 0), "round \(round)")
      #expect(!store.logs.contains { $0.message.contains("left behind") }, "round \(round): \(store.logs)")
      await store.finish()
    }
  }

  static func decode(_ json: JSONValue) throws -> State {
    try JSONValueDecoder().decode(State.self, from: json)
  }
}
