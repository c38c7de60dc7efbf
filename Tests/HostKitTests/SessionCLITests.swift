import FeatureTesting
import Foundation
import Testing

@Suite("Sessions, replay and time travel in the CLI")
struct SessionCLITests {
  let state: StateFolder

  init() throws { state = try StateFolder() }

  var journalPath: String { state.journal("demo") }

  @Test func aSessionRestoresTheCountAndTheFeatureSeesRestored() async throws {
    let first = try await state.host(["run", "counter", "--session", "demo"], "increment\nincrement\nincrement\n")
    #expect(first.status == 0)
    let second = try await state.host(["run", "counter", "--session", "demo"], "decrement\n:state\n:history\n")
    #expect(second.status == 0)
    // The run says what it restored: the feature and the seq it is at.
    #expect(second.stderr == "note: restored session demo (counter) at seq 4\n")
    let lines = second.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == #"{"clicks":4,"count":2}"#)
    #expect(lines.contains { $0.hasSuffix(#"lifecycle {"type":"restored"}"#) })
    #expect(!lines.contains { $0.contains(#""type":"created""#) && $0.hasPrefix("     5") })
  }

  @Test func undoRedoAndGotoMoveThroughTheHistoryAndKeepUndoneActions() async throws {
    let result = try await state.host(
      ["run", "counter", "--session", "demo"],
      "increment\nincrement\ndecrement\n:undo\n:state\n:undo\n:state\n:redo\n:state\n:goto 2\n:state\nincrement\n:redo\n"
    )
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(
      Array(lines.prefix(9)) == [
        "back at seq 3", #"{"clicks":2,"count":2}"#,
        "back at seq 2", #"{"clicks":1,"count":1}"#,
        "forward at seq 5", #"{"clicks":2,"count":2}"#,
        "at seq 2", #"{"clicks":1,"count":1}"#,
        "Counter",
      ])
    #expect(result.stderr.contains("error: line 13: nothing to redo"))
    let journal = try String(contentsOfFile: journalPath, encoding: .utf8)
    // the undone decrement is still in the journal, followed by the travels
    #expect(journal.contains(/\n\{"action":\{"type":"decrement"\},"at":\d+,"seq":4,"source":"user"\}\n/))
    #expect(journal.contains(#""to":3,"travel":"undo""#))
  }

  @Test func aSessionAnOlderHostJournaledWithoutTimesReplaysRestoresAndGoesOnWithTimes() async throws {
    // given: a session whose action lines have no "at"
    try FileManager.default.createDirectory(atPath: "\(state.path)/featurehost", withIntermediateDirectories: true)
    let old =
      [
        #"{"created":"2026-11-29T21:00:00Z","feature":"counter","featureVersion":"1.0.0","format":1,"host":"0.1.0","journal":"featurehost"}"#,
        #"{"seq":0,"state":{"clicks":0,"count":0}}"#,
        #"{"action":{"type":"created"},"seq":1,"source":"lifecycle"}"#,
        #"{"action":{"type":"increment"},"seq":2,"source":"user"}"#,
        #"{"action":{"type":"increment"},"seq":3,"source":"user"}"#,
      ].joined(separator: "\n") + "\n"
    try old.write(toFile: journalPath, atomically: true, encoding: .utf8)
    // when / then: it replays, and counts its actions
    let replay = try await state.host(["replay", journalPath])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout.hasSuffix("count:  2\n  clicks: 2\n"))
    let listed = try await state.host(["sessions"]).stdout.split(separator: "\n").first { $0.hasPrefix("demo ") }
    #expect(listed?.split(separator: " ").prefix(3) == ["demo", "counter", "3"], "\(listed ?? "")")
    // when / then: it restores, and the actions after it are timed from its header's created
    let run = try await state.host(["run", "counter", "--session", "demo"], "decrement\n:state\n")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix(#"{"clicks":3,"count":1}"#))
    let lines = try String(contentsOfFile: journalPath, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines.starts(with: old.split(separator: "\n").map(String.init)))
    let added = lines.dropFirst(5).filter { $0.hasPrefix(#"{"action":"#) }
    #expect(added.count == 2, "restored and decrement: \(added)")
    // Counted from 2026-11-29T21:00:00Z (1795986000 s since 1970), within a minute of now.
    let now = Int(Date().timeIntervalSince1970 * 1000) - 1_795_986_000_000
    #expect(
      added.allSatisfy { line in
        line.firstMatch(of: /"at":(\d+),/).flatMap { Int($0.1) }.map { abs($0 - now) < 60_000 } == true
      }, "\(added)")
  }

  @Test func aRefusedActionIsJournaledWithoutASeqAndSkippedByReplayRestoreHistoryAndSessions() async throws {
    // given: a session in which the counter refused an action between two increments
    let first = try await state.host(
      ["run", "counter", "--session", "demo"], "increment\n{\"type\":\"nope\"}\nincrement\n")
    #expect(first.status == 0)
    #expect(first.stderr.contains(#"error: line 2: counter refused the user action {"type":"nope"}"#))
    let journal = try String(contentsOfFile: journalPath, encoding: .utf8)
    let refusal = try #require(journal.split(separator: "\n").first { $0.contains(#""refused":"#) })
    #expect(refusal.hasPrefix(#"{"at":"#), "\(refusal)")
    #expect(
      refusal.replacing(/"at":\d+,/, with: "")
        == #"{"error":"action 'nope' of counter was refused: type: unknown \"type\" \"nope\" for Action","#
        + #""refused":{"type":"nope"},"seq":2,"source":"user"}"#, "\(refusal)")
    #expect(journal.contains(/"seq":3,"source":"user"\}\n$/), "the next action takes seq 3")
    // when / then: host sessions counts the three applied actions only
    let listed = try await state.host(["sessions"]).stdout.split(separator: "\n").first { $0.hasPrefix("demo ") }
    #expect(listed?.split(separator: " ").prefix(3) == ["demo", "counter", "3"], "\(listed ?? "")")
    // when / then: replay does not send it again, and says so
    let replay = try await state.host(["replay", journalPath])
    #expect(replay.status == 0, "\(replay.stderr)")
    #expect(replay.stdout.hasSuffix("count:  2\n  clicks: 2\n"))
    #expect(
      replay.stderr.contains(
        #"note: journal '\#(journalPath)' seq 2: counter refused the user action {"type":"nope"}: action 'nope'"#),
      "\(replay.stderr)")
    // when / then: restore and :history skip it
    let again = try await state.host(["run", "counter", "--session", "demo"], ":state\n:history\n")
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.hasPrefix(#"{"clicks":2,"count":2}"#), "\(again.stdout)")
    #expect(!again.stdout.contains("nope"), "\(again.stdout)")
  }

  @Test func saveAndLoadReapplyAStateCheckedByThePlugin() async throws {
    let file = "\(state.path)/saved.json"
    let bad = "\(state.path)/bad.json"
    try #"{"clicks":1,"count":7}"#.write(toFile: bad, atomically: true, encoding: .utf8)
    let result = try await state.host(
      ["run", "counter"], "increment\n:save \(file)\nincrement\n:load \(file)\n:state\n:load \(bad)\n:state\n")
    #expect(result.status == 0)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "{\"clicks\":1,\"count\":1}\n")
    let states = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
    #expect(states == [#"{"clicks":1,"count":1}"#, #"{"clicks":1,"count":1}"#])
    #expect(result.stderr.contains("error: line 6: feature 'counter' refused the state"))
    #expect(result.stderr.contains("count 7 cannot be reached in 1 clicks"))
  }

  @Test func replayReproducesTheSnapshotsWithEffectsOff() async throws {
    _ = try await state.host(
      ["run", "levels", "--session", "demo", "--config", "interval=0"], "set left=0 right=8\n:settle\n")
    let result = try await state.host(["replay", journalPath])
    #expect(result.status == 0)
    #expect(result.stdout.hasSuffix(SettledLevels.view(at: 4, bar: 32)))
    #expect(result.stderr.contains("snapshot(s) matched byte for byte"))
  }

  @Test func replayStopsAtTheSeqGivenWithTo() async throws {
    _ = try await state.host(["run", "counter", "--session", "demo"], "increment\nincrement\nincrement\n")
    let result = try await state.host(["replay", journalPath, "--to", "2"])
    #expect(result.status == 0)
    #expect(result.stdout.hasSuffix("count:  1\n  clicks: 1\n"))
  }

  @Test func aSnapshotThatIsNotReproducedIsAnErrorNamingTheSeq() async throws {
    _ = try await state.host(["run", "counter", "--session", "demo"], "increment\n:undo\n")
    var journal = try String(contentsOfFile: journalPath, encoding: .utf8)
    journal += #"{"seq":3,"state":{"clicks":5,"count":5}}"# + "\n"
    try journal.write(toFile: journalPath, atomically: true, encoding: .utf8)
    let result = try await state.host(["replay", journalPath])
    #expect(result.status == 1)
    #expect(result.stderr.contains("seq 3: the replayed state differs from the recorded snapshot"))
  }

  struct BadJournal: CustomTestStringConvertible, Sendable {
    let id: String
    let edit: @Sendable (String) -> String
    let message: String
    var testDescription: String { id }
  }

  static let badJournals: [BadJournal] = [
    BadJournal(
      id: "corrupt-middle-line",
      edit: { $0.replacing(/\{"action":\{"type":"increment"\},"at":\d+,"seq":2/, with: "garbage") },
      message: "line 4"),
    BadJournal(
      id: "other-feature", edit: { $0.replacingOccurrences(of: #""feature":"counter""#, with: #""feature":"levels""#) },
      message: "levels"),
    BadJournal(
      id: "newer-format", edit: { $0.replacingOccurrences(of: #""format":1"#, with: #""format":9"#) }, message: "format"
    ),
    BadJournal(id: "not-json", edit: { _ in "\u{7F}ELF\u{01}\u{02}binary\n" }, message: "line 1"),
  ]

  @Test("a bad journal is refused naming the file and line, and left untouched", arguments: badJournals)
  func badJournalIsRefused(_ bad: BadJournal) async throws {
    _ = try await state.host(["run", "counter", "--session", "demo"], "increment\nincrement\n")
    let edited = bad.edit(try String(contentsOfFile: journalPath, encoding: .utf8))
    try edited.write(toFile: journalPath, atomically: true, encoding: .utf8)
    let result = try await state.host(["run", "counter", "--session", "demo"], "increment\n")
    #expect(result.status == 1)
    #expect(result.stderr.contains("error: "))
    #expect(result.stderr.contains(journalPath))
    #expect(result.stderr.contains(bad.message), "\(result.stderr)")
    #expect(try String(contentsOfFile: journalPath, encoding: .utf8) == edited)
  }

  @Test func aTornLastLineIsReportedAndIgnored() async throws {
    _ = try await state.host(["run", "counter", "--session", "demo"], "increment\nincrement\n")
    let handle = try #require(FileHandle(forWritingAtPath: journalPath))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(#"{"action":{"type":"incr"#.utf8))
    try handle.close()
    let result = try await state.host(["run", "counter", "--session", "demo"], ":state\n")
    #expect(result.status == 0)
    #expect(result.stderr.contains("torn"))
    #expect(result.stdout.hasPrefix(#"{"clicks":2,"count":2}"#))
  }

  struct BadName: CustomTestStringConvertible, Sendable {
    let id: String
    let name: String
    var testDescription: String { id }
  }

  static let badNames: [BadName] = [
    BadName(id: "slash", name: "a/b"), BadName(id: "dot-dot", name: "a..b"),
    BadName(id: "leading-dot", name: ".hidden"),
    BadName(id: "empty", name: ""), BadName(id: "too-long", name: String(repeating: "x", count: 101)),
  ]

  @Test("a session name with a path in it is refused", arguments: badNames)
  func badSessionName(_ bad: BadName) async throws {
    let result = try await state.host(["run", "counter", "--session", bad.name])
    #expect(result.status == 64)
    #expect(result.stderr.contains("error: the session name"))
    #expect(!FileManager.default.fileExists(atPath: "\(state.path)/featurehost/\(bad.name).jsonl") || bad.name.isEmpty)
  }

  @Test func sessionsAreListedAndRemovedByCommand() async throws {
    _ = try await state.host(["run", "counter", "--session", "demo"], "increment\n")
    _ = try await state.host(["run", "levels", "--session", "other", "--config", "interval=0"], ":settle\n")
    let listed = try await state.host(["sessions"])
    #expect(listed.status == 0)
    let lines = listed.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(lines.first?.hasPrefix("demo   counter") == true)
    #expect(lines.last?.hasPrefix("other  levels") == true)
    let removed = try await state.host(["sessions", "rm", "demo"])
    #expect(removed.status == 0)
    #expect(!FileManager.default.fileExists(atPath: journalPath))
    let missing = try await state.host(["sessions", "rm", "demo"])
    #expect(missing.status != 0)
    #expect(missing.stderr.contains("demo"))
  }
}
