import CounterFeature
import Dispatch
import FeatureABI
import FeatureJSON
import Synchronization
import Testing

@testable import FeatureKit

/// A hand-made host that records what an instance's effects send and log, in order.
enum RecordingHost {
  static let events = Mutex<[String]>([])
  /// Signalled by effect_ended: a run has finished.
  static let ended = DispatchSemaphore(value: 0)

  static func host() -> fh_host {
    var host = fh_host()
    host.struct_size = UInt32(MemoryLayout<fh_host>.size)
    host.abi_major = FH_ABI_MAJOR
    host.emit = { json, _ in
      let text = json.map { String(cString: $0) } ?? "NULL"
      RecordingHost.events.withLock { $0.append("emit \(text)") }
    }
    host.log = { level, message in
      let text = message.map { String(cString: $0) } ?? "NULL"
      RecordingHost.events.withLock { $0.append("log \(level) \(text)") }
    }
    host.effect_began = {}
    host.effect_ended = { RecordingHost.ended.signal() }
    return host
  }

  static func reset() {
    events.withLock { $0.removeAll() }
    while ended.wait(timeout: .now()) == .success {}
  }
}

enum Probe: Codable, Sendable, Equatable {
  case set(left: Int, right: Int)
  case reset
  case failed(reason: String)
}

struct Boom: Error, CustomStringConvertible {
  var description: String { "boom" }
}

@Suite("FeatureKit keeps the contract", .serialized)
struct FeatureKitContractTests {
  static func runner() -> EffectRunner<Probe> {
    var host = RecordingHost.host()
    return EffectRunner(host: withUnsafePointer(to: &host) { HostConnection($0) })
  }

  @Test func anErrorARunThrowsIsLoggedWhenTheFeatureGivesNoAction() {
    RecordingHost.reset()
    let runner = Self.runner()
    runner.start()
    runner.run(.run(id: "load") { _ in throw Boom() }, origin: fh_origin(FH_ORIGIN_EFFECT))
    #expect(RecordingHost.ended.wait(timeout: .now() + .seconds(10)) == .success)
    #expect(RecordingHost.events.withLock { $0 } == ["log \(FH_LOG_ERROR) effect 'load' failed: boom"])
    runner.stop()
  }

  @Test func anErrorARunThrowsBecomesTheFeaturesAction() {
    RecordingHost.reset()
    let runner = Self.runner()
    runner.start()
    runner.run(
      .run({ _ in throw Boom() }, catch: { error in .failed(reason: "\(error)") }), origin: fh_origin(FH_ORIGIN_EFFECT))
    #expect(RecordingHost.ended.wait(timeout: .now() + .seconds(10)) == .success)
    #expect(RecordingHost.events.withLock { $0 } == [#"emit {"reason":"boom","type":"failed"}"#])
    runner.stop()
  }

  @Test func aRunCancelledByStopReportsNothingAfterStop() {
    RecordingHost.reset()
    let runner = Self.runner()
    runner.start()
    runner.run(.run { _ in try await Task.sleep(for: .seconds(60)) }, origin: fh_origin(FH_ORIGIN_EFFECT))
    runner.stop()
    // stop waited for the run to wind down; neither its cancellation nor a send reaches the host.
    runner.run(.send(.reset), origin: fh_origin(FH_ORIGIN_EFFECT))
    #expect(RecordingHost.events.withLock { $0 } == [])
  }

  @Test func aRunThatIgnoresCancellationIsLeftBehindAfterTwoSecondsAndTheHostIsTold() {
    RecordingHost.reset()
    let runner = Self.runner()
    runner.start()
    // a run that does not end when cancelled (it waits on something that ignores cancellation)
    runner.run(
      .run { _ in
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
          DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(4)) { done.resume() }
        }
      }, origin: fh_origin(FH_ORIGIN_EFFECT))
    runner.stop()
    #expect(
      RecordingHost.events.withLock { $0 } == [
        "log \(FH_LOG_WARNING) 1 effect(s) still running 2 s after stop were left behind: "
          + "an effect should end when it is cancelled"
      ])
  }

  @Test func aCatalogueThatMatchesTheActionTypePasses() {
    let manifest = Self.manifest([
      ActionSpec(
        "set", help: "",
        arguments: [ArgumentSpec("left", .integer, help: ""), ArgumentSpec("right", .integer, help: "")]),
      ActionSpec("reset", help: ""),
    ])
    #expect(manifest.catalogueMismatch(with: Probe.self) == nil)
    #expect(CounterFeature.exportedManifest?.catalogueMismatch(with: CounterFeature.Action.self) == nil)
  }

  struct Mismatch: CustomTestStringConvertible, Sendable {
    let id: String
    let actions: [ActionSpec]
    let problem: String
    var testDescription: String { id }
  }

  static let mismatches: [Mismatch] = [
    Mismatch(
      id: "a-type-without-a-case", actions: [ActionSpec("rest", help: "")],
      problem: "the catalogue lists the action 'rest', which Probe has no case for"),
    Mismatch(
      id: "a-misspelt-argument",
      actions: [
        ActionSpec(
          "set", help: "",
          arguments: [ArgumentSpec("left", .integer, help: ""), ArgumentSpec("rigth", .integer, help: "")])
      ],
      problem: "the catalogue's action 'set' does not list the argument 'right' that Probe needs"),
    Mismatch(
      id: "an-argument-the-case-drops",
      actions: [
        ActionSpec(
          "set", help: "",
          arguments: [
            ArgumentSpec("left", .integer, help: ""), ArgumentSpec("right", .integer, help: ""),
            ArgumentSpec("step", .integer, help: ""),
          ])
      ],
      problem: "the catalogue's action 'set' lists the argument 'step', which Probe does not take"),
  ]

  @Test(arguments: mismatches)
  func aCatalogueThatDisagreesIsNamed(_ mismatch: Mismatch) {
    #expect(Self.manifest(mismatch.actions).catalogueMismatch(with: Probe.self) == mismatch.problem)
  }

  /// A feature whose catalogue names an action its `Action` type lacks.
  struct Mislabelled: Feature {
    typealias State = Int
    typealias Action = Probe
    static let manifest = FeatureKitContractTests.manifest([ActionSpec("rest", help: "")])
    init(config: FeatureConfig) {}
    func initialState() -> Int { 0 }
    func reduce(into state: inout Int, action: Probe) -> Effect<Probe> { .none }
    func render(_ state: Int) -> [String] { [] }
  }

  @Test func aPluginWhoseCatalogueDisagreesExportsNoDescriptor() {
    // The entry then returns NULL: the host refuses the plugin at load, and stderr names 'rest'.
    #expect(FeatureExport.plugin(Mislabelled.self) == nil)
  }

  @Test func aConfigNamingASettingNeverReadIsRefusedNamingIt() throws {
    let config = FeatureConfig(values: ["interval": 5, "intervall": 6])
    _ = try config.integer("interval")
    #expect(config.unknownSettingProblem(feature: "levels") == "unknown setting 'intervall'; levels reads interval")
    #expect(
      FeatureConfig(values: ["x": 1]).unknownSettingProblem(feature: "counter")
        == "unknown setting 'x'; counter reads no settings")
    #expect(config.unknownSettingProblem(feature: "levels") != nil)
    let read = FeatureConfig(values: ["entries": []])
    _ = read.value("entries")
    #expect(read.unknownSettingProblem(feature: "home") == nil)
  }

  @Test func aDroppedMemberIsFoundWithItsPath() throws {
    let given = try JSONValue.parse(#"{"rows":[{"name":"a","typo":1}],"total":2,"note":null}"#)
    let kept = try JSONValue.parse(#"{"rows":[{"name":"a"}],"total":2}"#)
    #expect(UnreadMember.find(in: given, comparedTo: kept) == "rows[0].typo")
    #expect(UnreadMember.find(in: kept, comparedTo: kept) == nil)
  }

  @Test func aDroppedMemberAfterScalarsInAnArrayIsFoundAgainstTheMembersOnlyParse() throws {
    let given = try JSONValue.parse(#"{"rows":[1,"x",{"name":"a","typo":1}],"urls":["u","v"]}"#)
    let kept = try Array(#"{"rows":[0,0,{"name":0}],"urls":[0,0]}"#.utf8).withUnsafeBytes {
      try JSONValue.parseMembers(bytes: $0)
    }
    #expect(UnreadMember.find(in: given, comparedTo: kept) == "rows[2].typo")
    let clean = try JSONValue.parse(#"{"rows":[1,"x",{"name":"a"}],"urls":["u","v"]}"#)
    #expect(UnreadMember.find(in: clean, comparedTo: kept) == nil)
  }

  static func manifest(_ actions: [ActionSpec]) -> Manifest {
    Manifest(id: "probe", name: "Probe", version: "1.0.0", description: "", actions: actions)
  }
}
