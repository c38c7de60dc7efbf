import Testing

@testable import host

@Suite struct CompletionTests {
  let completion = Completion(
    actions: [("set", ["left", "right"]), ("settle", []), ("increment", [])],
    commands: ColonCommand.all, features: ["counter", "kittens", "levels"])

  @Test func theFirstWordCompletesToActionsOrColonCommands() {
    #expect(completion.candidates(before: "", word: "se") == ["set", "settle"])
    #expect(completion.candidates(before: "", word: "in") == ["increment"])
    #expect(completion.candidates(before: "", word: ":h") == [":help", ":history"])
    #expect(completion.candidates(before: "", word: "zz") == [])
  }

  @Test func argumentNamesComeWithTheirEqualsSignAndOnlyOnce() {
    #expect(completion.candidates(before: "set ", word: "le") == ["left="])
    #expect(completion.candidates(before: "set left=3 ", word: "") == ["right="])
    #expect(completion.candidates(before: "set left=", word: "3") == [])
    #expect(completion.candidates(before: "increment ", word: "") == [])
  }

  @Test func openAndFocusCompleteFeatureIDsEvenAsPrefixes() {
    #expect(completion.candidates(before: ":open ", word: "k") == ["kittens"])
    #expect(completion.candidates(before: ":o ", word: "") == ["counter", "kittens", "levels"])
    #expect(completion.candidates(before: ":focus ", word: "le") == ["levels"])
    #expect(completion.candidates(before: ":help ", word: "") == [])
    #expect(completion.candidates(before: ":open counter ", word: "") == [])
  }
}
