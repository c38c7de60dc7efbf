import FeatureTesting
import Foundation
import HostKit
import Testing

/// Bad input of every kind loses nothing: a journal with a bad line, `:save` onto a session,
/// `:back` right after typing.
@Suite("Faults in the CLI")
struct FaultCLITests {
  let state: StateFolder

  init() throws { state = try StateFolder() }

  var journalPath: String { state.journal("demo") }

  /// A session of three increments, then a line an older host journaled from a bad emit, then
  /// one more increment: the journal's lines 1-6 are good, line 7 is not JSON.
  func poisonedSession() async throws -> String {
    let first = try await state.host(["run", "counter", "--session", "demo"], "increment\nincrement\nincrement\n")
    #expect(first.status == 0)
    let good = try String(contentsOfFile: journalPath, encoding: .utf8)
    let poisoned =
      good + #"{"action":{"type":"tick",},"seq":5,"source":"effect"}"# + "\n"
      + #"{"action":{"type":"increment"},"seq":6,"source":"user"}"# + "\n"
    try poisoned.write(toFile: journalPath, atomically: true, encoding: .utf8)
    return poisoned
  }

  @Test func aJournalWithALineThatIsNotJSONRestoresUpToItAndSetsTheRestAside() async throws {
    let poisoned = try await poisonedSession()
    let lines = poisoned.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines[6].contains(#""tick","#))
    // when the session runs again
    let result = try await state.host(["run", "counter", "--session", "demo"], ":state\nincrement\n:state\n")
    // then the state before the bad line is restored, with a warning naming the line and where
    // the rest went, and the session goes on
    #expect(result.status == 0)
    let states = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
    #expect(states == [#"{"clicks":3,"count":3}"#, #"{"clicks":4,"count":4}"#])
    let aside = "\(journalPath).line-7.damaged"
    #expect(result.stderr.contains("warning: journal '\(journalPath)' line 7 has an action that is not JSON"))
    #expect(result.stderr.contains("moved to '\(aside)'"))
    #expect(
      try String(contentsOfFile: aside, encoding: .utf8) == lines[6...7].joined(separator: "\n") + "\n")
    // and the journal replays whole
    let replay = try await state.host(["replay", journalPath])
    #expect(replay.status == 0)
    #expect(replay.stderr.contains("replayed 6 action(s)"))
  }

  @Test func replayOfAJournalWithALineThatIsNotJSONNamesItAndShowsTheStateBefore() async throws {
    _ = try await poisonedSession()
    let result = try await state.host(["replay", journalPath])
    #expect(result.status == 1)
    #expect(result.stdout.hasSuffix("Counter\n  count:  3\n  clicks: 3\n"))
    #expect(
      result.stderr.contains(
        "error: journal '\(journalPath)' line 7 has an action that is not JSON"))
    #expect(result.stderr.contains("replayed the 4 action(s) before it"))
    // replay reads only: the file is as it was
    #expect(try String(contentsOfFile: journalPath, encoding: .utf8).contains(#""tick","#))
  }

  @Test func backAppliesAndJournalsEverythingTypedBeforeIt() async throws {
    // the loss depended on thread timing: 20 runs, and each must keep all three
    for run in 0..<20 {
      try? FileManager.default.removeItem(atPath: state.sessions)
      let result = try await state.host(
        ["run", "counter", "--session", "demo"], ":open counter\nincrement\nincrement\nincrement\n:back\n")
      #expect(result.status == 0, "run \(run): \(result.stderr)")
      let journal = try String(contentsOfFile: "\(state.sessions)/demo.d/2-counter.jsonl", encoding: .utf8)
      let increments = journal.split(separator: "\n").filter { $0.contains(#""type":"increment""#) }
      #expect(increments.count == 3, "run \(run) kept \(increments.count) of 3")
      if increments.count != 3 { break }
    }
  }

  @Test func saveNeverWritesOverAJournalNorIntoTheStateFolder() async throws {
    _ = try await state.host(["run", "counter", "--session", "demo"], "increment\n")
    let copy = "\(state.path)/copy.jsonl"
    try FileManager.default.copyItem(atPath: journalPath, toPath: copy)
    let cases: [(id: String, command: String, error: String)] = [
      ("own journal", ":save \(journalPath)", "is in the folder where sessions live"),
      ("own journal, replacing", ":save! \(journalPath)", "is in the folder where sessions live"),
      ("new file in the state folder", ":save \(state.sessions)/state.json", "is in the folder where sessions live"),
      ("through ..", ":save \(state.sessions)/demo.d/../demo.jsonl", "is in the folder where sessions live"),
      ("a journal elsewhere, replacing", ":save! \(copy)", "'\(copy)' is a session journal"),
      ("a folder", ":save! \(state.path)", "is a folder, not a regular file"),
    ]
    let copied = try Data(contentsOf: URL(fileURLWithPath: copy))
    for entry in cases {
      let before = try Data(contentsOf: URL(fileURLWithPath: journalPath))
      let result = try await state.host(["run", "counter", "--session", "demo"], "\(entry.command)\n")
      #expect(result.status == 0, "\(entry.id)")
      #expect(result.stderr.contains(entry.error), "\(entry.id): \(result.stderr)")
      #expect(!result.stdout.contains("saved the state"), "\(entry.id)")
      // the journal only grew by the run's own lines: everything before is there, byte for byte
      let after = try Data(contentsOf: URL(fileURLWithPath: journalPath))
      #expect(after.starts(with: before), "\(entry.id)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == copied)
    #expect(!FileManager.default.fileExists(atPath: "\(state.sessions)/state.json"))
    #expect(try await state.host(["replay", journalPath]).status == 0)
  }

  @Test func saveReplacesAFileOnlyWhenAskedWithSaveBang() async throws {
    let file = "\(state.path)/saved.json"
    try "keep me\n".write(toFile: file, atomically: true, encoding: .utf8)
    let refused = try await state.host(["run", "counter"], "increment\n:save \(file)\n")
    #expect(refused.stderr.contains("error: line 2: '\(file)' exists; it was left as it is"))
    #expect(refused.stderr.contains("help: ':save! \(file)' replaces it"))
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me\n")
    let replaced = try await state.host(["run", "counter"], "increment\n:save! \(file)\n")
    #expect(replaced.stderr == "")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "{\"clicks\":1,\"count\":1}\n")
    let help = try await state.host(["run", "counter"], ":help\n")
    #expect(help.stdout.contains(":save! FILE  write the state as JSON, replacing FILE"))
  }

  /// Durations out of range, each with an id: none may reach a clock.
  static let badDurations: [(id: String, arguments: [String])] = [
    ("settle 1e10", ["run", "counter", "--settle-timeout", "1e10"]),
    ("settle 1e16", ["run", "counter", "--settle-timeout", "1e16"]),
    ("settle a day and a second", ["run", "counter", "--settle-timeout", "86401"]),
    ("settle negative", ["run", "counter", "--settle-timeout", "-1"]),
    ("settle nan", ["run", "counter", "--settle-timeout", "nan"]),
    ("settle inf", ["run", "counter", "--settle-timeout", "inf"]),
    ("call 1e16", ["run", "counter", "--call-timeout", "1e16"]),
    ("check 1e300", ["check", "--timeout", "1e300", "Tests/Transcripts"]),
    ("validate 1e300", ["validate", "--timeout", "1e300", "libCounter.so"]),
    ("scan 1e300", ["--scan-timeout", "1e300", "list"]),
  ]

  @Test(arguments: badDurations.map(\.id))
  func aDurationOutOfRangeIsAUsageError(id: String) async throws {
    let arguments = try #require(Self.badDurations.first { $0.id == id }).arguments
    let result = try await state.host(arguments, "increment\n")
    #expect(result.status == 64, "\(result.stderr)")
    #expect(result.stderr.contains("must be a number of seconds"))
    #expect(result.stderr.contains("(at most "))
    #expect(result.stdout == "")
  }

  @Test func theLongestSettleTimeoutIsAcceptedAndNothingIsLost() async throws {
    let result = try await state.host(
      ["run", "counter", "--settle-timeout", "86400"], "increment\nincrement\n:state\n")
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix(#"{"clicks":2,"count":2}"#))
    let zero = try await state.host(
      ["run", "counter", "--settle-timeout", "0", "--call-timeout", "86400"], "increment\n:state\n")
    #expect(zero.status == 0)
    #expect(zero.stdout.hasPrefix(#"{"clicks":1,"count":1}"#))
  }

  @Test func aHugeLineIsRefusedWithOneShortErrorAndTheRunGoesOn() async throws {
    let word = String(repeating: "x", count: 2_000_000)
    let command = ":" + String(repeating: "y", count: 1_500_000)
    let medium = String(repeating: "z", count: 500_000)
    let result = try await state.host(["run", "counter"], "\(word)\nincrement\n\(command)\n\(medium)\n:state\n")
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix(#"{"clicks":1,"count":1}"#))
    #expect(result.stderr.contains("error: line 1: the line is 2000000 bytes, more than the 1048576 a line may have"))
    #expect(result.stderr.contains("error: line 3: the line is 1500001 bytes"))
    #expect(
      result.stderr.contains(
        "error: line 4: unknown action '" + String(repeating: "z", count: 200) + "... (499800 more bytes)'"))
    #expect(result.stderr.utf8.count < 2_000)
    // a line that would be a good action once trimmed is still over a 9-byte limit
    let limited = try await state.host(["run", "counter", "--max-line-bytes", "9"], "increment\n  increment\n:state\n")
    #expect(limited.stdout.hasPrefix(#"{"clicks":1,"count":1}"#))
    #expect(limited.stderr.contains("error: line 2: the line is 11 bytes, more than the 9 a line may have"))
  }

  /// Paths that are not regular files, each with an id and how the error names its kind.
  func specialFiles() throws -> [(id: String, path: String, kind: String)] {
    let fifo = "\(state.path)/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let folder = "\(state.path)/folder"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return [("fifo", fifo, "a FIFO"), ("device", "/dev/zero", "a character device"), ("folder", folder, "a folder")]
  }

  @Test func filesThatAreNotRegularGetAClearErrorAndNeverBlock() async throws {
    for special in try specialFiles() {
      let uses: [(id: String, arguments: [String], input: String, status: Int32)] = [
        ("replay", ["replay", special.path], "", 1),
        (":load", ["run", "counter"], ":load \(special.path)\n", 0),
        ("--flow", ["run", "--flow", special.path], "", 1),
        ("check", ["check", special.path], "", 1),
      ]
      for use in uses where !(use.id == "check" && special.id == "folder") {
        let result = try await state.host(use.arguments, use.input)
        let what = "\(special.id) to \(use.id)"
        #expect(result.status == use.status, "\(what): \(result.stderr)")
        #expect(
          result.stderr.contains("'\(special.path)' is \(special.kind), not a regular file"),
          "\(what): \(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain"), "\(what)")
      }
    }
  }

  @Test func aSessionJournalThatIsAFIFOIsRefusedAndListedWithItsProblem() async throws {
    try FileManager.default.createDirectory(atPath: state.sessions, withIntermediateDirectories: true)
    #expect(mkfifo(journalPath, 0o600) == 0)
    let run = try await state.host(["run", "counter", "--session", "demo"], "increment\n")
    #expect(run.status == 1)
    #expect(run.stderr.contains("'\(journalPath)' is not a regular file"), "\(run.stderr)")
    let list = try await state.host(["sessions"])
    #expect(
      list.stdout.contains("it is a FIFO, not a regular file")
        || list.stderr.contains("it is a FIFO, not a regular file"), "\(list.stdout)\(list.stderr)")
  }

  @Test func aHugeFileThatIsNotAJournalIsRefusedAtLineOne() async throws {
    // a sparse gigabyte of zero bytes, and a gigabyte whose first line is text
    let zeros = "\(state.path)/zeros.jsonl"
    #expect(FileManager.default.createFile(atPath: zeros, contents: nil))
    #expect(truncate(zeros, 1 << 30) == 0)
    let text = "\(state.path)/text.jsonl"
    #expect(FileManager.default.createFile(atPath: text, contents: Data("garbage\n".utf8)))
    #expect(truncate(text, 1 << 30) == 0)
    for (file, problem) in [
      (zeros, "line 1 is longer than 1048576 bytes: it is not a journal header"), (text, "line 1 is not JSON"),
    ] {
      let result = try await state.host(["replay", file])
      #expect(result.status == 1)
      #expect(result.stderr.contains("'\(file)'"), "\(result.stderr)")
      #expect(result.stderr.contains(problem), "\(result.stderr)")
    }
    try FileManager.default.createDirectory(atPath: state.sessions, withIntermediateDirectories: true)
    try FileManager.default.moveItem(atPath: zeros, toPath: journalPath)
    let run = try await state.host(["run", "counter", "--session", "demo"], "increment\n")
    #expect(run.status == 1)
    #expect(run.stderr.contains("line 1 is longer than 1048576 bytes"), "\(run.stderr)")
  }

  @Test func foundationsFileErrorsAreOneLineNamingThePathAndTheReason() async throws {
    let result = try await state.host(["new", "tally", "--dir", "/dev/null/x"])
    #expect(result.status == 1)
    #expect(
      result.stderr == "error: cannot write the plugin folder '/dev/null/x/tally': Not a directory ('/dev/null/x')\n")
    let denied = NSError(
      domain: NSCocoaErrorDomain, code: 512,
      userInfo: [
        NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES)), NSFilePathErrorKey: "/x/y",
      ])
    #expect(SystemReason.of(denied, naming: "/x/y") == "Permission denied")
    #expect(SystemReason.of(denied, naming: "/x") == "Permission denied ('/x/y')")
    #expect(SystemReason.of(NSError(domain: NSCocoaErrorDomain, code: 640)) == "No space left on device")
  }
}
