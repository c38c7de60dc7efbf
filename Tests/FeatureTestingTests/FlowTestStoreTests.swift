import FeatureJSON
import FeatureTesting
import HostKit
import KittensFeature
import Testing

/// FlowTestStore over the real coordinator and the real plugins: every step, stack and state of
/// the main flow, a presented frame, a C plugin, time and cancellation across features.
@Suite("FlowTestStore")
struct FlowTestStoreTests {
  static let catalog = "file://\(FixturePlugin.packageRoot)/Plugins/Kittens/catalog.json"
  static let firstCats = [
    "https://cdn2.thecatapi.com/images/AGD.jpg", "https://cdn2.thecatapi.com/images/l3s.jpg",
  ]

  @Test func theMainFlowGoesHomeCounterLevelsBackKittensBack() async throws {
    // given the main flow over real plugins: levels paced by the manual clock, kittens on a file
    let flow = try await FlowTestStore(
      plugins: [
        "Home", "Counter", .plugin("Levels", config: ["interval": 50]),
        .plugin("Kittens", config: ["endpoint": .string(Self.catalog), "limit": 2]),
      ])
    #expect(flow.stack == ["home"])
    // when home picks counter, then the flow pushes it
    await flow.send("pick entry=counter") { home in #expect(home["picked"] == "counter") }
    await flow.receive(step: ["step": "featurePicked", "feature": "counter"], from: "home", stack: ["home", "counter"])
    await flow.send("increment", assert: ["count": 1, "clicks": 1])
    // when levels is opened over counter, its first paced step waits on the clock
    await flow.open("levels", stack: ["home", "counter", "levels"])
    #expect(flow.pendingTimers == 1)
    await flow.advance(by: .milliseconds(50))
    await flow.receive("increaseLeft", from: "levels", assert: ["left": 11, "right": 20])
    await flow.receive("decreaseRight", from: "levels", assert: ["left": 11, "right": 19])
    // then going back pops levels, cancelling its next step, and counter kept its state
    await flow.back(stack: ["home", "counter"], cancelled: ["levels": 1])
    #expect(try flow.state() == ["count": 1, "clicks": 1])
    // when kittens is opened, its first page comes from the catalog
    await flow.open("kittens", stack: ["home", "counter", "kittens"])
    await flow.receive(
      .encoding(KittensFeature.Action.pageLoaded(offset: 0, urls: Self.firstCats)), from: "kittens",
      assert: [
        "urls": .array(Self.firstCats.map { .string($0) }), "isLoading": false, "loadingOffset": 0,
        "nextOffset": 2, "endReached": false,
      ])
    await flow.back(stack: ["home", "counter"])
    await flow.finish()
  }
}
