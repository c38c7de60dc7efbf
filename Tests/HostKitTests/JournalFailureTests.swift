import HostKit
import Testing

/// The journal's and the sessions folder's failures are worded for any front end.
@Suite("Journal failures")
struct JournalFailureTests {
  static let failures: [any EngineFailure] = [
    JournalFailure.system(operation: "open", path: "s.jsonl", code: 2),
    JournalFailure.inUse(path: "s.jsonl"),
    JournalFailure.notRegularFile(path: "s.jsonl"),
    JournalFailure.alreadyExists(path: "s.jsonl"),
    JournalFailure.closed(path: "s.jsonl"),
    JournalFailure.notJSONObject(what: "action", json: "[1]"),
    JournalFailure.invalidJSON(what: "state", json: "{x}", detail: "invalid JSON at byte 1: expected '\"'"),
    JournalFailure.loadTravelWithTarget,
    JournalFailure.travelOutOfRange(kind: .undo, to: 9, path: "s.jsonl", lastSeq: 3),
    JournalFailure.configNotObject(config: "[1]"),
    JournalFailure.empty(path: "s.jsonl"),
    JournalFailure.headerNotJSON(path: "s.jsonl", detail: "bad"),
    JournalFailure.headerWithoutMarker(path: "s.jsonl", marker: JournalHeader.marker),
    JournalFailure.headerWithoutMarker(path: "n.jsonl", marker: NavigationJournal.marker),
    JournalFailure.headerFormatInvalid(path: "s.jsonl"),
    JournalFailure.headerFormatTooNew(path: "s.jsonl", format: "2", readable: 1),
    JournalFailure.navigationFormatTooNew(path: "n.jsonl", format: "2"),
    JournalFailure.headerKeyMissing(path: "s.jsonl", key: "feature"),
    JournalFailure.headerConfigNotObject(path: "s.jsonl"),
    JournalFailure.otherFeature(path: "s.jsonl", feature: "levels", expected: "counter"),
    JournalFailure.damaged(path: "s.jsonl", line: 7, problem: "is not JSON"),
    JournalFailure.notNavigationRecord(path: "n.jsonl", line: 3),
    JournalFailure.nothingToUndo,
    JournalFailure.nothingToRedo,
    JournalFailure.noSuchSeq(path: "s.jsonl", seq: 9, lastSeq: 3),
    JournalFailure.noStateBefore(path: "s.jsonl", seq: 2),
    JournalFailure.snapshotFailed(feature: "counter", forJournal: true, detail: "boom"),
    JournalFailure.loadRefused(feature: "counter", detail: "boom"),
    JournalFailure.replayRefused(path: "s.jsonl", feature: "counter", what: "the action at seq 2", detail: "boom"),
    SessionFailure.noStateFolder,
    SessionFailure.badName(name: "a/b", problem: "contains '/'"),
    SessionFailure.notAFolder(root: "/x"),
    SessionFailure.cannotList(root: "/x", detail: "boom"),
    SessionFailure.noSuchSession(name: "demo"),
    SessionFailure.cannotRemove(path: "/x/demo.d", detail: "boom"),
  ]

  @Test("no failure names a command-line flag, a host command or a : command", arguments: failures.indices)
  func noFailureNamesTheCommandLine(_ index: Int) {
    let failure = Self.failures[index]
    let words = failure.description + " " + (failure.advice ?? "")
    for cliWord in ["--", "'host ", "head -n"] {
      #expect(!words.contains(cliWord), "\(failure): \(words)")
    }
    #expect(!words.contains(/':[a-z]/), "\(failure) names a : command: \(words)")
  }

  @Test func aJournalFailureThrownAsAHostErrorKeepsItsCaseAndWords() {
    let failure = JournalFailure.damaged(path: "s.jsonl", line: 7, problem: "is not JSON")
    let error = HostError(failure)
    #expect(error.failure as? JournalFailure == failure)
    #expect(error.message == "journal 's.jsonl' line 7 is not JSON")
    #expect(error.help == "nothing was changed; lines 1-6 are intact: keep them in a new file, or remove the session")
  }
}
