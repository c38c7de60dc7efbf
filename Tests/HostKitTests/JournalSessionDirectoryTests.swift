import Foundation
import HostKit
import Testing

@Suite("Session directory")
struct JournalSessionDirectoryTests {
  struct Environment: CustomTestStringConvertible, Sendable {
    let id: String
    let variables: [String: String]
    let root: String?
    var testDescription: String { id }
  }

  static let environments: [Environment] = [
    Environment(
      id: "xdg", variables: ["XDG_STATE_HOME": "/x/state", "HOME": "/home/a"],
      root: "/x/state/featurehost"),
    Environment(
      id: "home", variables: ["HOME": "/home/a"], root: "/home/a/.local/state/featurehost"),
    Environment(
      id: "relative-xdg-is-ignored", variables: ["XDG_STATE_HOME": "state", "HOME": "/home/a"],
      root: "/home/a/.local/state/featurehost"),
    Environment(
      id: "empty-xdg-is-ignored", variables: ["XDG_STATE_HOME": "", "HOME": "/h"],
      root: "/h/.local/state/featurehost"),
    Environment(id: "nothing", variables: [:], root: nil),
  ]

  @Test("the sessions folder follows XDG_STATE_HOME, then HOME", arguments: environments)
  func theSessionsFolderFollowsTheEnvironment(_ environment: Environment) throws {
    if let root = environment.root {
      #expect(try SessionDirectory.default(environment: environment.variables).root == root)
    } else {
      #expect(throws: HostError.self) {
        try SessionDirectory.default(environment: environment.variables)
      }
    }
  }

  static let badNames: [TextCase] = [
    TextCase(id: "empty", text: "", expected: "is empty"),
    TextCase(id: "slash", text: "a/b", expected: "contains '/'"),
    TextCase(id: "parent", text: "..", expected: "starts with '.'"),
    TextCase(id: "dot-dot-inside", text: "a..b", expected: "contains '..'"),
    TextCase(id: "hidden", text: ".secret", expected: "starts with '.'"),
    TextCase(id: "nul", text: "a\u{0}b", expected: "contains a control character"),
    TextCase(id: "newline", text: "a\nb", expected: "contains a control character"),
    TextCase(id: "too-long", text: String(repeating: "x", count: 101), expected: "is 101 bytes long"),
    TextCase(
      id: "too-long-in-bytes", text: String(repeating: "é", count: 51), expected: "is 102 bytes long"),
  ]

  @Test("a bad session name is refused, saying what is allowed", arguments: badNames)
  func aBadSessionNameIsRefused(_ bad: TextCase) {
    let error = #expect(throws: HostError.self) {
      try SessionDirectory(root: "/s").path(for: bad.text)
    }
    #expect(error?.message.contains(bad.expected) == true, "\(error?.message ?? "no error")")
    #expect(error?.message.contains("\n") == false)
    #expect(error?.kind == .usage)
    #expect(error?.help?.contains("1-100 bytes") == true)
  }

  @Test func goodNamesMapToJSONLinesFiles() throws {
    let directory = SessionDirectory(root: "/s")
    #expect(try directory.path(for: "counter-demo") == "/s/counter-demo.jsonl")
    #expect(try directory.path(for: "a.b c") == "/s/a.b c.jsonl")
    #expect(try directory.path(for: String(repeating: "x", count: 100)).hasPrefix("/s/xxx"))
  }

  @Test func theFolderIsCreatedPrivateWithItsParents() throws {
    // given
    let scratch = try JournalScratch()
    let directory = SessionDirectory(root: scratch.file("state/featurehost"))
    // when
    try directory.ensureExists()
    try directory.ensureExists()
    // then
    let attributes = try FileManager.default.attributesOfItem(atPath: directory.root)
    #expect((attributes[.posixPermissions] as? Int) == 0o700)
  }

  @Test func listingShowsEachSessionsFeatureActionsAndLastChange() throws {
    // given: two sessions, a temporary file, a damaged journal, and an unrelated file
    let scratch = try JournalScratch()
    let directory = SessionDirectory(root: scratch.path)
    let big = try JournalWriter.create(
      at: directory.path(for: "big"), header: JournalFixtures.header)
    // More than one 1 MiB read chunk, so that lines straddle chunks.
    for count in 1...30_000 {
      try big.append(action: JournalFixtures.increment, source: .user)
      if big.snapshotDue { try big.append(snapshot: #"{"clicks":\#(count),"count":\#(count)}"#) }
    }
    try big.close()
    let small = try JournalWriter.create(
      at: directory.path(for: "small"), header: JournalFixtures.header)
    try small.append(action: JournalFixtures.increment, source: .user)
    try small.append(travel: .undo, to: 0, state: "{}")
    try small.close()
    try scratch.write("small.jsonl", try scratch.text("small.jsonl") + #"{"action":{"ty"#)
    try scratch.write(".big.jsonl.Ab12Cd", "half")
    try scratch.write("broken.jsonl", "garbage\n")
    try scratch.write("notes.txt", "hello")
    // when
    let sessions = try directory.list()
    // then
    #expect(sessions.map(\.name) == ["big", "broken", "small"])
    #expect(sessions.map(\.feature) == ["counter", nil, "counter"])
    #expect(sessions.map(\.actions) == [30_000, 0, 1])
    #expect(sessions[1].problem?.contains("line 1 is not JSON") == true)
    #expect(sessions[0].problem == nil)
    #expect(abs(sessions[0].lastChange.timeIntervalSinceNow) < 600)
  }

  @Test func listingAFolderThatDoesNotExistShowsNoSessions() throws {
    let scratch = try JournalScratch()
    #expect(try SessionDirectory(root: scratch.file("none")).list().isEmpty)
  }

  @Test func removingASessionDeletesItsJournal() throws {
    // given
    let scratch = try JournalScratch()
    let directory = SessionDirectory(root: scratch.path)
    try JournalWriter.create(at: directory.path(for: "s"), header: JournalFixtures.header).close()
    // when
    try directory.remove("s")
    // then
    #expect(try directory.contains("s") == false)
    let error = #expect(throws: HostError.self) { try directory.remove("s") }
    #expect(error?.message == "there is no session named 's'")
  }

  @Test func aSessionInUseIsNotRemoved() throws {
    // given
    let scratch = try JournalScratch()
    let directory = SessionDirectory(root: scratch.path)
    let writer = try JournalWriter.create(
      at: directory.path(for: "s"), header: JournalFixtures.header)
    // when
    let error = #expect(throws: HostError.self) { try directory.remove("s") }
    // then
    #expect(error?.message.contains("in use by another host process") == true)
    #expect(try directory.contains("s"))
    try writer.close()
  }
}
