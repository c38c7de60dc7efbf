import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

/// A reporter that keeps what it is told.
final class RecordingReporter: RuntimeReporter {
  let errors = Mutex<[HostError]>([])
  let notices = Mutex<[RuntimeNotice]>([])

  func report(_ error: HostError) { errors.withLock { $0.append(error) } }
  func notice(_ notice: RuntimeNotice) { notices.withLock { $0.append(notice) } }
}

@Suite("Session runtime")
struct SessionRuntimeTests {
  struct Harness {
    let runtime: SessionRuntime
    let sink: RecordingSink
    let reporter: RecordingReporter
    let temporaryRoot: String
  }

  /// An opened runtime of the counter alone, and its feature; the caller closes the runtime.
  static func openCounter(live: Bool = false) throws -> (Harness, SessionRuntime, PresentedFeature) {
    let harness = try harness(live: live)
    let runtime = harness.runtime
    do {
      try runtime.open()
      return (harness, runtime, try #require(runtime.focused))
    } catch {
      runtime.close()
      throw error
    }
  }

  /// A runtime for `flow` over the counter and levels, with a line renderer writing to a recording.
  static func harness(
    _ flow: Flow = .single("counter"), live: Bool = false, session: String? = nil, sessions: String? = nil,
    config: @escaping SessionRuntime.ConfigProvider = { _, _ in "{}" }
  ) throws -> Harness {
    let sink = RecordingSink()
    let reporter = RecordingReporter()
    var settings = RunSettings()
    let root = try FixturePlugin.temporaryFolder()
    settings.temporaryRoot = root
    settings.session = session
    settings.sessions = sessions.map(SessionDirectory.init(root:))
    let plugins = [try PluginLoader.load(CounterLibrary.path), try PluginLoader.load(PluginPaths.library("Levels"))]
      .map(PluginRecord.init)
    let runtime = SessionRuntime(
      plugins: plugins, flow: flow, settings: settings, renderers: [LineRenderer(sink: sink, live: live)],
      reporter: reporter, config: config)
    return Harness(runtime: runtime, sink: sink, reporter: reporter, temporaryRoot: root)
  }

  @Test func aCounterLaunchedThroughTheRuntimeIsDrawnAtTheEndOfAPipedRun() throws {
    // given a runtime drawing as in a pipe
    let (harness, runtime, counter) = try Self.openCounter()
    defer { runtime.close() }
    // when two actions are typed and the input ends
    try runtime.send("increment", to: counter)
    try runtime.send("increment", to: counter)
    runtime.finish(settling: true)
    // then the state holds both, and the final view alone was drawn
    #expect(try runtime.state(of: counter) == #"{"clicks":2,"count":2}"#)
    #expect(harness.sink.writes == [try #require(runtime.view(of: counter))])
    #expect(harness.reporter.errors.withLock { $0 }.isEmpty)
  }

  @Test func liveTheViewIsDrawnAsItChanges() throws {
    let (harness, runtime, counter) = try Self.openCounter(live: true)
    defer { runtime.close() }
    try runtime.send("increment", to: counter)
    runtime.settle()
    let last = try #require(runtime.view(of: counter))
    #expect(harness.sink.writes.count == 2)
    #expect(harness.sink.writes.last == last)
  }

  @Test func timeTravelMovesTheStateThroughTheJournal() throws {
    // given a counter incremented twice
    let (_, runtime, counter) = try Self.openCounter()
    defer { runtime.close() }
    try runtime.send("increment", to: counter)
    try runtime.send("increment", to: counter)
    runtime.settle()
    let history = try runtime.history(of: counter)
    #expect(history.map(\.source) == [.lifecycle, .user, .user])
    // when the last action is undone, then redone, then the run goes to the first one
    let undone = try runtime.undo(counter)
    #expect(undone == history[2].seq - 1)
    #expect(try runtime.state(of: counter) == #"{"clicks":1,"count":1}"#)
    #expect(try runtime.redo(counter) == history[2].seq)
    #expect(try runtime.state(of: counter) == #"{"clicks":2,"count":2}"#)
    try runtime.goto(history[1].seq, in: counter)
    #expect(try runtime.state(of: counter) == #"{"clicks":1,"count":1}"#)
    // and nothing is left to redo
    let error = #expect(throws: HostError.self) { try runtime.redo(counter) }
    #expect(error?.message == "nothing to redo")
  }

  @Test func aSavedStateLoadsBack() throws {
    let (harness, runtime, counter) = try Self.openCounter()
    defer { runtime.close() }
    try runtime.send("increment", to: counter)
    let file = "\(harness.temporaryRoot)/state.json"
    try runtime.save(counter, to: file)
    try runtime.send("decrement", to: counter)
    try runtime.load(from: file, into: counter)
    #expect(try runtime.state(of: counter) == #"{"clicks":1,"count":1}"#)
  }

  struct BadCall: CustomTestStringConvertible, Sendable {
    let id: String
    let call: @Sendable (SessionRuntime, PresentedFeature) throws(HostError) -> Void
    let failure: RuntimeFailure
    var testDescription: String { id }
  }

  static let badCalls: [BadCall] = [
    BadCall(
      id: "load-missing-file",
      call: { runtime, feature throws(HostError) in
        try runtime.load(from: "/nonexistent/state.json", into: feature)
      },
      failure: .unreadable(path: "/nonexistent/state.json", reason: "")),
    BadCall(
      id: "save-into-missing-folder",
      call: { runtime, feature throws(HostError) in
        try runtime.save(feature, to: "/nonexistent/folder/state.json")
      },
      failure: .unwritable(path: "/nonexistent/folder/state.json", reason: "")),
    BadCall(
      id: "resume-unpaused", call: { runtime, feature throws(HostError) in try runtime.resume(feature) },
      failure: .notPaused(feature: "counter")),
  ]

  @Test("a call the runtime cannot do throws its failure, naming the value", arguments: badCalls)
  func badCallThrows(_ bad: BadCall) throws {
    let (_, runtime, counter) = try Self.openCounter()
    defer { runtime.close() }
    let error = #expect(throws: HostError.self) { try bad.call(runtime, counter) }
    let failure = try #require(error?.failure as? RuntimeFailure)
    // The system's wording of a file error is not ours to pin: compare the case and the path.
    switch (failure, bad.failure) {
    case (.unreadable(let path, _), .unreadable(let expected, _)),
      (.unwritable(let path, _), .unwritable(let expected, _)):
      #expect(path == expected)
    default:
      #expect(failure == bad.failure)
    }
  }

  @Test func anActionTheFeatureRefusesIsReportedAndLeavesTheStateAsItWas() throws {
    let (harness, runtime, counter) = try Self.openCounter()
    defer { runtime.close() }
    let before = try runtime.state(of: counter)
    try runtime.send(#"{"type":"bogus"}"#, to: counter)
    runtime.settle()
    #expect(try runtime.state(of: counter) == before)
    let errors = harness.reporter.errors.withLock { $0 }
    #expect(errors.count == 1)
    guard case .actionRefused(let feature, let source, let action, _) = errors.first?.failure as? RuntimeFailure else {
      Issue.record("expected a refused action, got \(errors)")
      return
    }
    #expect(feature == "counter" && source == .user && action == #"{"type":"bogus"}"#)
    #expect(errors.first?.help?.contains("':") == false)
  }

  @Test func theTemporaryFolderHoldsTheJournalsUntilClose() throws {
    let harness = try Self.harness()
    let runtime = harness.runtime
    try runtime.open()
    let folder = try #require(runtime.temporaryFolder)
    #expect(folder.hasPrefix(harness.temporaryRoot + "/"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["1-counter.jsonl"])
    runtime.close()
    #expect(!FileManager.default.fileExists(atPath: folder))
    #expect(runtime.temporaryFolder == nil)
  }

  @Test func aRunSweepsAwayTheRunFoldersOfHostsThatAreGoneAndKeepsTheRest() throws {
    // given the user's folder of run folders holding a folder of a host that is gone (a process
    // started and reaped), one of a host that is running (init), and something else
    let harness = try Self.harness()
    let parent = "\(harness.temporaryRoot)/featurehost-runs-\(geteuid())"
    #expect(mkdir(parent, 0o700) == 0)
    var gone: pid_t = 0
    var arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
    defer { free(arguments[0]) }
    #expect(posix_spawn(&gone, "/bin/true", nil, nil, &arguments, environ) == 0)
    var status: Int32 = 0
    #expect(waitpid(gone, &status, 0) == gone)
    for name in ["\(gone)-AbCdEf", "1-GhIjKl", "notes"] { #expect(mkdir("\(parent)/\(name)", 0o700) == 0) }
    let journal = "\(parent)/\(gone)-AbCdEf/1-counter.jsonl"
    #expect(FileManager.default.createFile(atPath: journal, contents: Data("{}".utf8)))
    // when a run opens there
    let runtime = harness.runtime
    try runtime.open()
    defer { runtime.close() }
    // then the gone host's folder and what it held are removed, the others kept, and the run's own
    // folder is there, named after this process
    let folder = try #require(runtime.temporaryFolder)
    let left = Set(try FileManager.default.contentsOfDirectory(atPath: parent))
    #expect(left == ["1-GhIjKl", "notes", String(folder.split(separator: "/").last ?? "")])
    #expect(folder.hasPrefix("\(parent)/\(getpid())-"))
  }

  @Test func theConfigProviderConfiguresEachFeatureByItsNumber() throws {
    // given a provider that records what it is asked and numbers the counter's config
    let asked = Mutex<[String]>([])
    let harness = try Self.harness { plugin, number in
      asked.withLock { $0.append("\(plugin.id) \(number)") }
      return plugin.id == "levels" ? #"{"interval":0}"# : "{}"
    }
    let runtime = harness.runtime
    defer { runtime.close() }
    try runtime.open()
    // when another feature is opened over the first
    try runtime.open("levels")
    // then the provider was asked for each, in presentation order
    #expect(asked.withLock { $0 } == ["counter 1", "levels 2"])
    #expect(runtime.focused?.id == "levels")
    try runtime.back()
    #expect(runtime.focused?.id == "counter")
    let error = #expect(throws: HostError.self) { try runtime.back() }
    #expect(error?.failure as? NavigationFailure == .nothingToGoBackTo)
  }

  @Test func aNamedSessionIsRestoredWhereItWasLeft() throws {
    // given a session that counted to two
    let sessions = try FixturePlugin.temporaryFolder()
    let first = try Self.harness(session: "s", sessions: sessions)
    try first.runtime.open()
    let counter = try #require(first.runtime.focused)
    try first.runtime.send("increment", to: counter)
    try first.runtime.send("increment", to: counter)
    first.runtime.finish(settling: true)
    first.runtime.close()
    // when a new runtime opens it
    let second = try Self.harness(session: "s", sessions: sessions)
    defer { second.runtime.close() }
    try second.runtime.open()
    // then the counter is back with its count
    let restored = try #require(second.runtime.focused)
    #expect(try second.runtime.state(of: restored) == #"{"clicks":2,"count":2}"#)
    #expect(FileManager.default.fileExists(atPath: "\(sessions)/s.jsonl"))
    #expect(FileManager.default.fileExists(atPath: "\(sessions)/s.d/navigation.jsonl"))
  }
}

@Suite("Engine failures name no command-line words")
struct EngineFailureWordingTests {
  struct Sample: CustomTestStringConvertible, Sendable {
    let id: String
    let failure: any EngineFailure
    var testDescription: String { id }
  }

  static let samples: [Sample] = [
    Sample(id: "restored-feature-missing", failure: NavigationFailure.restoredFeatureMissing(id: "x")),
    Sample(id: "nothing-to-go-back-to", failure: NavigationFailure.nothingToGoBackTo),
    Sample(
      id: "unknown-action",
      failure: ActionLineFailure.unknownAction(
        type: "incremnt", feature: "counter", suggestion: "increment", actions: ["increment"])),
    Sample(id: "journal-missing", failure: RuntimeFailure.journalMissing(session: "s", journal: "s.d/2-x.jsonl")),
    Sample(id: "not-paused", failure: RuntimeFailure.notPaused(feature: "counter")),
    Sample(id: "not-settled", failure: RuntimeFailure.notSettled(feature: "counter", timeout: .seconds(1), effects: 1)),
    Sample(
      id: "changed-since-scan", failure: RegistryFailure.changedSinceScan(feature: "a", path: "/p/a.so", now: "b")),
  ]

  @Test("an engine failure's words name no flag and no ':' command", arguments: samples)
  func noCommandLineWords(_ sample: Sample) {
    let words = sample.failure.description + " " + (sample.failure.advice ?? "")
    #expect(!words.contains("--"), "\(words)")
    #expect(!words.contains("':"), "\(words)")
    #expect(!words.contains("host "), "\(words)")
  }

  @Test func noticesNameNoCommandLineWords() {
    for notice in [RuntimeNotice.configKept(session: "s", config: "{}"), .paused(feature: "counter")] {
      #expect(!notice.description.contains("--") && !notice.description.contains("':"), "\(notice)")
    }
  }
}
