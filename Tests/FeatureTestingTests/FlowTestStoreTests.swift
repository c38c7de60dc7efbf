import FeatureJSON
import FeatureTesting
import Foundation
import HostKit
import KittensFeature
import Testing

@testable import host

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
    await flow.receive(
      step: ["step": "featurePicked", "feature": "counter"], from: "home", stack: ["home", "counter"])
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

  @Test func theReadmeExampleIsTheMainFlowTest() throws {
    // given the README's "Test a flow" example and this file
    let root = FixturePlugin.packageRoot
    let readme = try String(contentsOfFile: "\(root)/README.md", encoding: .utf8)
    let source = try String(
      contentsOfFile: "\(root)/Tests/FeatureTestingTests/FlowTestStoreTests.swift", encoding: .utf8)
    let section = try #require(readme.range(of: "### Test a flow")).upperBound
    let open = try #require(readme.range(of: "```swift\n", range: section..<readme.endIndex)).upperBound
    let close = try #require(readme.range(of: "\n```", range: open..<readme.endIndex)).lowerBound
    // then the example, indented as a member of this suite, is a test of it
    let example = readme[open..<close].split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : "  \($0)" }.joined(separator: "\n")
    #expect(example.contains("@Test func theMainFlowGoesHomeCounterLevelsBackKittensBack"))
    #expect(source.contains(example))
  }

  @Test func theHomeMenuOffersWhatTheCLIWouldOffer() async throws {
    // given the main flow with no config for the menu
    let flow = try await FlowTestStore(plugins: ["Home", "Counter", "CExample"])
    // then the menu holds the entries the CLI builds (Sources/host/HomeMenu.swift)
    let cli = try JSONValue.parse(HomeMenu.config(offering: flow.plugins.map(PluginRecord.init)))
    #expect(try flow.state(of: "home")["entries"] == cli["entries"])
    #expect(try flow.state(of: "home")["entries"]?.arrayValue?.count == 2)
    await flow.finish()
  }

  /// Home picks a feature; the flow presents it beside the thermostat (a C plugin).
  static let dashboard = """
    {"flow": "dashboard",
     "start": {"push": "home"},
     "on": {"featurePicked": {"present": ["{feature}", "thermostat"]}}}
    """

  @Test func aPresentedFrameTakesInputAtItsFocusAndAC_PluginRunsInsideIt() async throws {
    // given a flow given inline, with the thermostat written in C
    let flow = try await FlowTestStore(
      flow: .json(Self.dashboard), plugins: ["Home", "Counter", .plugin("CExample", config: ["target": 21])])
    // when home picks counter, then counter and thermostat are shown side by side, counter focused
    await flow.send("pick entry=counter") { home in #expect(home["picked"] == "counter") }
    await flow.receive(step: "featurePicked", stack: ["home", .present("counter", "thermostat", focus: "counter")])
    await flow.send("increment", assert: ["count": 1, "clicks": 1])
    // when the focus moves, input goes to the thermostat
    await flow.focus("thermostat", stack: ["home", .present("counter", "thermostat", focus: "thermostat")])
    #expect(flow.focused == "thermostat")
    await flow.send("warmer", assert: ["mode": "off", "target": 22])
    // and a feature of the frame can still be named
    await flow.send("decrement", to: "counter", assert: ["count": 0, "clicks": 2])
    // then back pops both
    await flow.back(stack: ["home"])
    await flow.finish()
  }

  @Test func aFlowFileIsCheckedAndRunAsHostRunFlowDoes() async throws {
    // given a flow file that starts with two features presented
    let path = "\(NSTemporaryDirectory())flowtest-\(UInt64.random(in: 0...UInt64.max)).json"
    try #"{"flow": "pair", "start": {"present": ["counter", "levels"]}}"#.write(
      toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let flow = try await FlowTestStore(
      flow: .file(path), plugins: ["Counter", .plugin("Levels", config: ["interval": 1000])])
    #expect(flow.stack == [.present("counter", "levels")])
    // when a second of manual time passes, only levels moves
    await flow.advance(by: .seconds(1))
    await flow.receive("increaseLeft", from: "levels", assert: ["left": 11, "right": 20])
    await flow.receive("decreaseRight", from: "levels", assert: ["left": 11, "right": 19])
    #expect(try flow.state(of: "counter") == ["count": 0, "clicks": 0])
    // then each further second moves it a step, until the levels meet and no timer is left
    for _ in 0..<4 { await flow.advance(by: .seconds(1)) }
    await flow.skipReceivedActions()
    #expect(try flow.state(of: "levels") == ["left": 15, "right": 15])
    #expect(flow.pendingTimers == 0)
    await flow.finish()
  }

  @Test(arguments: [
    (id: "unknown-feature", json: #"{"flow": "f", "start": {"push": "countr"}}"#, message: "unknown feature 'countr'"),
    (
      id: "unknown-step", json: #"{"flow": "f", "start": {"push": "counter"}, "on": {"picked": {"pop": true}}}"#,
      message: "unknown step 'picked'"
    ),
  ])
  func aBadFlowIsRefusedNamingTheOffendingValue(id: String, json: String, message: String) async throws {
    do {
      _ = try await FlowTestStore(flow: .json(json), plugins: ["Counter"])
      Issue.record("\(id): expected the flow to be refused")
    } catch let error as HostError {
      #expect(error.message.contains(message), "\(id): \(error.message)")
    }
  }
}
