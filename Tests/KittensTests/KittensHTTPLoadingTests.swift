import FeatureTesting
import Foundation
import HostKit
import Testing

/// The http(s) client (FoundationNetworking, libcurl) is mapped at the first http(s) fetch only:
/// a kittens host reading a `file` catalog never maps it. The plugin finds it in its own folder
/// (the build folder, or an install), and a reload's copy in the host executable's folder.
@Suite("kittens loads its http client lazily")
struct KittensHTTPLoadingTests {
  static let networking = ["libFoundationNetworking", "libcurl", "libKittensHTTP_private"]
  static let client = "libKittensHTTP_private.so"

  /// What a kittens host printed, and the shared objects it mapped, dlopen'ed ones included: the
  /// dynamic loader's own record of each file (`LD_DEBUG=files` on stderr).
  struct Run {
    let stdout: String
    let status: Int32
    let mapped: [String]

    /// Whether a file whose name contains `name` was mapped.
    func maps(_ name: String) -> Bool { mapped.contains { $0.contains(name) } }
  }

  /// `host [plugins] run kittens --isolation none [extra]` (`executable`, else the built host)
  /// loading its first page from `endpoint` and printing the state, off the cooperative pool.
  static func run(
    endpoint: String, executable: String = HostProcess.executable, plugins: String? = nil, extra: [String] = []
  ) async throws -> Run {
    try await offPool {
      var process = ChildProcess(
        executable,
        arguments: (plugins.map { ["--plugins", $0] } ?? []) + [
          "run", "kittens", "--isolation", "none", "--config", "endpoint=\(endpoint)",
        ] + extra,
        environment: HostProcess.environment(adding: ["LD_DEBUG": "files"]))
      process.standardInput = .bytes(Array(":settle\n:state\n".utf8))
      let result = try process.run(timeout: .seconds(600))
      let mapped = result.errorText.split(separator: "\n").compactMap { line in
        line.range(of: "file=").flatMap { line[$0.upperBound...].split(separator: " ").first.map(String.init) }
      }
      return Run(stdout: result.outputText, status: result.termination.shellStatus, mapped: mapped)
    }
  }

  /// A host installed as a person would: `bin/host`, and `lib/` holding libKittens.so and `also`.
  struct Install {
    let root: String
    var host: String { "\(root)/bin/host" }
    var plugins: String { "\(root)/lib" }

    init(also libraries: [String]) throws {
      root = try FixturePlugin.temporaryFolder()
      let files = FileManager.default
      try files.createDirectory(atPath: "\(root)/bin", withIntermediateDirectories: false)
      try files.createDirectory(atPath: plugins, withIntermediateDirectories: false)
      try files.copyItem(atPath: HostProcess.executable, toPath: host)
      for library in ["libKittens.so"] + libraries {
        try files.copyItem(atPath: "\(PluginPaths.buildFolder)/\(library)", toPath: "\(plugins)/\(library)")
      }
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
  }

  static let firstPage = #""urls":["https://cdn2.thecatapi.com/images/t0.jpg","#

  @Test func aFileCatalogNeverMapsTheHTTPClient() async throws {
    let run = try await Self.run(endpoint: "file://\(KittenCatalogTests.sampleCatalog)")
    // the first page came from the file, and the maps are the kittens host's (its plugin is there)
    #expect(run.status == 0)
    #expect(run.stdout.contains(#""urls":["https://"#), "the first page was not loaded: \(run.stdout)")
    #expect(run.maps("/libKittens.so"))
    // and hold no networking library
    #expect(run.mapped.filter { file in Self.networking.contains { file.contains($0) } } == [])
  }

  @Test func anHTTPFetchMapsTheHTTPClientFromTheBuildFolderAndLoads() async throws {
    let server = try LoopbackServer(.page(total: 3))
    defer { server.stop() }
    let run = try await Self.run(endpoint: server.endpoint)
    #expect(run.status == 0)
    #expect(run.stdout.contains(Self.firstPage), "the first page was not loaded: \(run.stdout)")
    for library in Self.networking {
      #expect(run.maps(library), "\(library) should be mapped after an http fetch")
    }
    #expect(run.mapped.contains("\(PluginPaths.buildFolder)/\(Self.client)"))
    #expect(server.targets == ["/v1/images/search?limit=10&offset=0"])
  }

  @Test func anInstalledPluginOpensTheHTTPClientFromItsOwnFolder() async throws {
    // given the host in bin/, the plugin and its client in lib/
    let install = try Install(also: [Self.client])
    defer { install.remove() }
    let server = try LoopbackServer(.page(total: 3))
    defer { server.stop() }
    // when
    let run = try await Self.run(endpoint: server.endpoint, executable: install.host, plugins: install.plugins)
    // then the installed plugin ran, with the client beside it
    #expect(run.status == 0)
    #expect(run.stdout.contains(Self.firstPage), "the first page was not loaded: \(run.stdout)")
    #expect(run.mapped.contains("\(install.plugins)/libKittens.so"))
    #expect(run.mapped.contains("\(install.plugins)/\(Self.client)"))
    #expect(!run.maps("\(PluginPaths.buildFolder)/"))
  }

  @Test func aMissingHTTPClientIsAnErrorNamingItAndWhereItBelongs() async throws {
    // given an install whose lib/ lacks the client
    let install = try Install(also: [])
    defer { install.remove() }
    let server = try LoopbackServer(.page(total: 3))
    defer { server.stop() }
    // when kittens loads over http
    let run = try await Self.run(endpoint: server.endpoint, executable: install.host, plugins: install.plugins)
    // then the host runs on, the load failed with a reason saying what to do, and nothing was sent
    #expect(run.status == 0)
    let reason =
      "cannot find the http client \(Self.client) in \(install.plugins) or \(install.root)/bin; "
      + "install it next to the kittens plugin"
    #expect(run.stdout.contains(#""error":"\#(reason)""#), "\(run.stdout)")
    #expect(run.stdout.contains(#""isLoading":false"#))
    #expect(!run.maps("libFoundationNetworking"))
    #expect(server.targets == [])
  }

  @Test func aReloadCopyOpensTheHTTPClientBesideItsCopy() async throws {
    // given a watched run, which runs every plugin from a copy
    let server = try LoopbackServer(.page(total: 3))
    defer { server.stop() }
    // when
    let run = try await Self.run(endpoint: server.endpoint, extra: ["--watch"])
    // then the plugin was mapped from a copy, and its client from beside that copy (a link the
    // staging put there), whatever folder the host runs from
    #expect(run.status == 0)
    #expect(run.stdout.contains(Self.firstPage), "the first page was not loaded: \(run.stdout)")
    let kittens = run.mapped.filter { $0.hasSuffix("libKittens.so") }
    #expect(!kittens.isEmpty && !kittens.contains("\(PluginPaths.buildFolder)/libKittens.so"), "\(kittens)")
    let folder = { (path: String) in path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "." }
    let clients = run.mapped.filter { $0.hasSuffix("/\(Self.client)") }
    #expect(
      !clients.isEmpty && clients.allSatisfy { client in kittens.contains { folder($0) == folder(client) } },
      "\(clients)")
  }

  @Test func hostListDoesNotTakeTheHTTPClientForAPlugin() async throws {
    // given the client library beside the plugins
    #expect(FileManager.default.fileExists(atPath: "\(PluginPaths.buildFolder)/\(Self.client)"))
    // when
    let result = try await HostProcess.run(["list"])
    // then kittens is listed, and the client neither listed nor rejected
    #expect(result.status == 0)
    #expect(result.stdout.contains("libKittens.so"))
    #expect(!(result.stdout + result.stderr).contains("KittensHTTP"))
  }
}

/// The http client runs its requests on threads of its own: a host or a test run that holds every
/// thread of Swift's cooperative pool (one per core) in blocking waits must not hold up a fetch.
@Suite("Kittens' http client and the cooperative pool")
struct KittensHTTPPoolTests {
  @Test func firstPagesLoadOverHTTPWhileEveryPoolThreadIsBlockedWaitingForThem() async throws {
    // given more kittens stores than the machine has cores, each loading its first page over http
    let server = try LoopbackServer(.page(total: 3))
    defer { server.stop() }
    let plugin = try PluginLoader.load(PluginPaths.library("Kittens"))
    let width = max(8, 2 * ProcessInfo.processInfo.activeProcessorCount)
    let config = #"{"endpoint":"\#(server.endpoint)","limit":3,"timeout":30}"#
    let stores = try (0..<width).map { _ in try Store(plugin: plugin, config: config, observer: { _ in }) }
    for store in stores { try store.start() }
    // when every cooperative-pool thread blocks waiting for one of them
    let results = await withTaskGroup(of: SettleResult.self) { group in
      for store in stores { group.addTask { store.waitUntilSettled(timeout: .seconds(30)) } }
      return await group.reduce(into: []) { $0.append($1) }
    }
    // then every request went out and every page came back: the client does not need the pool
    #expect(results == Array(repeating: .settled, count: width))
    #expect(server.targets == Array(repeating: "/v1/images/search?limit=3&offset=0", count: width))
    let firstPage = (0..<3).map { #""\#(LoopbackServer.imageURL($0))""# }.joined(separator: ",")
    for store in stores {
      #expect(store.perform { try? $0.snapshot() }?.contains(#""urls":[\#(firstPage)]"#) == true)
      store.stop()
    }
  }
}
