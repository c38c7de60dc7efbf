import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

@Suite("Kittens under navigation")
struct KittensNavigationTests {
  /// Stores for the coordinator, with the kittens endpoint pointed at the test's server.
  final class Launcher: FeatureLauncher, @unchecked Sendable {
    let kittensConfig: String
    init(kittensConfig: String) { self.kittensConfig = kittensConfig }

    func record(step: String, frames: [(features: [PresentedFeature], focus: Int)]) {}

    func launch(_ record: PluginRecord, number: Int, journal: String?) throws(HostError) -> PresentedFeature {
      let plugin = try record.load()
      let store = try Store(plugin: plugin, config: plugin.id == "kittens" ? kittensConfig : "{}", observer: { _ in })
      try store.start()
      return PresentedFeature(plugin: plugin, store: store, number: number)
    }

    func retire(_ feature: PresentedFeature) { feature.store.stop() }
    func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {}
    func log(_ line: String, isNote: Bool) {}
  }

  @Test func poppingKittensMidLoadCancelsTheRequest() async throws {
    // given kittens pushed over the counter, its first page held open by the server
    let server = try LoopbackServer(.hold)
    defer { server.stop() }
    let plugins = [
      try PluginLoader.load(PluginPaths.library("Counter")), try PluginLoader.load(PluginPaths.library("Kittens")),
    ].map(PluginRecord.init)
    let launcher = Launcher(kittensConfig: #"{"endpoint":"\#(server.endpoint)","timeout":30}"#)
    let coordinator = Coordinator(flow: .single("counter"), plugins: plugins, launcher: launcher, logsNavigation: false)
    try coordinator.start()
    try coordinator.open("kittens")
    let kittens = try #require(coordinator.top?.focus)
    #expect(await server.requestsArrived(1))
    // when the user goes back
    try await offPool { try coordinator.back() }
    // then kittens stopped, and the server saw its connection closed
    #expect(await server.clientClosed())
    #expect(kittens.store.waitUntilSettled(timeout: .seconds(1)) == .stopped)
    #expect(coordinator.top?.features.map(\.id) == ["counter"])
    coordinator.stopAll()
  }
}
