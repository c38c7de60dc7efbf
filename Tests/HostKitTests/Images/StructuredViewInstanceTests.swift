import FeatureTesting
import HostKit
import Testing

/// `fh.structured_view/1` through the instance interface: kittens offers it in process and in a
/// worker alike, with the text render gives; counter offers none.
@Suite("structured views through instances")
struct StructuredViewInstanceTests {
  static let kittensConfig = #"{"endpoint":"file:///nonexistent/catalog.json"}"#
  static let state =
    #"{"urls":["https://cats.test/a.jpg","https://cats.test/b.png"],"isLoading":false,"loadingOffset":0,"nextOffset":2,"endReached":true}"#

  func check(_ instance: any PluginInstance) throws {
    try instance.restore(Self.state)
    let json = try #require(try instance.structuredView())
    let view = try StructuredView.parse(json)
    #expect(view.text == (try instance.render()))
    #expect(
      view.items.compactMap { if case .image(let image) = $0 { image } else { nil } } == [
        ImageItem(url: "https://cats.test/a.jpg", alt: "  1. https://cats.test/a.jpg"),
        ImageItem(url: "https://cats.test/b.png", alt: "  2. https://cats.test/b.png"),
      ])
  }

  @Test func kittensOffersItInProcess() throws {
    let instance = try InstanceFactory.inProcess.makeInstance(
      of: try PluginLoader.load(PluginPaths.library("Kittens")), config: Self.kittensConfig, target: CallbackLog())
    defer { instance.destroy() }
    try check(instance)
  }

  @Test func kittensOffersItInAWorker() throws {
    let instance = try WorkerFixtures.worker(
      PluginPaths.library("Kittens"), config: Self.kittensConfig, target: CallbackLog())
    defer { instance.destroy() }
    try check(instance)
  }

  @Test func counterOffersNoneInProcessOrInAWorker() throws {
    let path = PluginPaths.library("Counter")
    let local = try InstanceFactory.inProcess.makeInstance(
      of: try PluginLoader.load(path), config: "{}", target: CallbackLog())
    let remote = try WorkerFixtures.worker(path, target: CallbackLog())
    defer {
      local.destroy()
      remote.destroy()
    }
    #expect(try local.structuredView() == nil)
    #expect(try remote.structuredView() == nil)
    // Asked again, the worker answers from what it learnt, and the view is still there.
    #expect(try remote.structuredView() == nil)
    #expect(try remote.render().contains("count"))
  }
}
