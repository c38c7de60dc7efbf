import FeatureTesting
import Testing

@testable import host

@Suite struct FeatureConfigCLITests {
  static let catalog = "file://\(ReadmeTests.root)/Tests/Transcripts/kittens-catalog.json"

  @Test func theMainFlowGivesIDDotKeyToTheFeatureItOpens() async throws {
    let result = try await HostProcess.run(
      ["--config", "kittens.endpoint=\(Self.catalog)", "--config", "kittens.limit=1"], input: "kittens\n:settle\n")
    #expect(result.stderr == "")
    #expect(
      result.stdout.hasSuffix(
        "Kittens — 1 image\n  1. https://cdn2.thecatapi.com/images/AGD.jpg\ntype 'loadMore' for the next page\n"))
  }

  @Test func runGivesKeyToItsFeatureAndIDDotKeyToOneItOpens() async throws {
    let result = try await HostProcess.run(
      [
        "run", "levels", "--config", "interval=0", "--config", "kittens.endpoint=\(Self.catalog)", "--config",
        "kittens.limit=2",
      ],
      input: ":open kittens\n:settle\n")
    #expect(result.stderr == "")
    #expect(
      result.stdout.hasSuffix("  2. https://cdn2.thecatapi.com/images/l3s.jpg\ntype 'loadMore' for the next page\n"))
  }

  @Test(
    arguments: [
      ("kittens.limit=2", "kittens", "limit=2"), ("limit=2", nil, nil), ("nobody.limit=2", nil, nil),
      ("{\"kittens.x\":1}", nil, nil), ("kittens.a.b=c", "kittens", "a.b=c"),
    ] as [(String, String?, String?)])
  func onlyAKnownFeatureIDBeforeTheDotScopesAValue(text: String, id: String?, rest: String?) {
    let scoped = RunCommand.featureScoped(text, ids: ["kittens", "counter"])
    #expect(scoped?.id == id)
    #expect(scoped?.rest == rest)
  }
}
