import FeatureABI

#if canImport(Glibc)
  import Glibc
#endif

/// How worker processes are started: the executable that serves as one, and how long a call may
/// take.
public struct WorkerSettings: Sendable {
  /// The host executable. A worker runs `host-worker` beside it (`workerExecutable`) as
  /// `host-worker __worker PARENT-PID`, with the socket on descriptor 3.
  public var executable: String
  /// Seconds one call may take before the worker is killed; 0 waits forever.
  public var callTimeout: Double
  /// Environment variables passed on beyond `WorkerEnvironment.passed` (tests: a fixture's).
  public var passedEnvironment: [String]
  /// The sandbox each worker applies before it loads its plugin.
  public var sandbox: SandboxSettings

  public init(
    executable: String, callTimeout: Double = RunSettingCatalogue.callTimeout.defaultSeconds,
    passedEnvironment: [String] = [], sandbox: SandboxSettings = SandboxSettings()
  ) {
    self.executable = executable
    self.callTimeout = callTimeout
    self.passedEnvironment = passedEnvironment
    self.sandbox = sandbox
  }

  /// What a worker runs: `host-worker` beside the host executable (see `LeanExecutable`).
  var workerExecutable: String { LeanExecutable.beside(executable) }

  /// The environment a worker started with these settings sees.
  var environment: [String: String] {
    WorkerEnvironment.cleaned(ChildProcess.currentEnvironment, extra: passedEnvironment)
  }
}

/// The environment a worker starts with: none of the host's, except these.
public enum WorkerEnvironment {
  /// Passed on when set: what finding programs, files, the locale and the dynamic loader needs,
  /// the variables the shipped features read (kittens' endpoint, levels' interval), and the
  /// options of a sanitizer the host was built with (a worker is the same executable).
  public static let passed = [
    "PATH", "HOME", "LANG", "TMPDIR", "TZ", "LD_LIBRARY_PATH", "SWIFT_BACKTRACE", "KITTENS_ENDPOINT",
    "LEVELS_INTERVAL", "ASAN_OPTIONS", "TSAN_OPTIONS", "FEATUREHOST_SANDBOX_SIMULATE",
  ]
  /// Passed on when set, by prefix: locale categories and the XDG folders.
  public static let passedPrefixes = ["LC_", "XDG_"]

  /// Names more variables to pass on, colon-separated: for a plugin that reads its own.
  public static let moreVariable = "FEATUREHOST_WORKER_ENV"

  /// `environment` cut down to what a worker gets, plus `extra` names and those `moreVariable`
  /// names.
  public static func cleaned(_ environment: [String: String], extra: [String] = []) -> [String: String] {
    let more = environment[moreVariable].map { $0.split(separator: ":").map(String.init) } ?? []
    let names = Set(passed + extra + more + [moreVariable])
    var cleaned = environment.filter { name, _ in
      names.contains(name) || passedPrefixes.contains { name.hasPrefix($0) }
    }
    // A crash is one line from the host, not the Swift runtime's backtrace on the user's
    // terminal; set SWIFT_BACKTRACE to get it back.
    if cleaned["SWIFT_BACKTRACE"] == nil { cleaned["SWIFT_BACKTRACE"] = "enable=no" }
    return cleaned
  }
}

extension InstanceFactory {
  /// Each instance in a worker process of its own: a crash or a hang costs that worker, which
  /// the call reports as `PluginCallError.loss`, never the host.
  public static func worker(_ settings: WorkerSettings) -> InstanceFactory {
    InstanceFactory(
      runsPluginsHere: false, prepare: { WorkerSpare.shared.prepare(settings) },
      { plugin, config, target throws(HostError) in
        try WorkerInstance(plugin: plugin, config: config, target: target, settings: settings)
      })
  }

  /// `worker(WorkerSettings(...))` spelled out.
  public static func worker(
    executable: String, callTimeout: Double = RunSettingCatalogue.callTimeout.defaultSeconds,
    passedEnvironment: [String] = [], sandbox: SandboxSettings = SandboxSettings()
  )
    -> InstanceFactory
  {
    worker(
      WorkerSettings(
        executable: executable, callTimeout: callTimeout, passedEnvironment: passedEnvironment, sandbox: sandbox))
  }
}

/// An instance whose plugin runs in a worker process (the host executable re-run in worker mode),
/// reached with `WorkerFrame`s through memory the two share (`WorkerConnection`).
///
/// Calls are serialized by the owner, as for every instance. A call that does not answer within
/// the call timeout kills the worker; a worker that dies makes the call throw with `loss` set, and
/// every later call throws the same. `destroy` ends the worker and reaps it.
public final class WorkerInstance: InterruptibleInstance {
  public let plugin: LoadedPlugin
  private let connection: WorkerConnection

  /// Starts a worker and creates the instance in it with `config`.
  public init(
    plugin: LoadedPlugin, config: String, target: any InstanceCallbackTarget, settings: WorkerSettings
  ) throws(HostError) {
    self.plugin = plugin
    let environment = settings.environment
    connection = try WorkerConnection.start(
      feature: plugin.id, target: target, settings: settings, environment: environment)
    var writer = FrameWriter()
    let start = writer.begin(WorkerFrame.Request.create.rawValue)
    writer.string(plugin.path)
    writer.string(config)
    WorkerLaunch.write(environment: connection.environment, to: &writer)
    var grant = WorkerGrant.grant(
      for: plugin.manifest, plugin: plugin.path, config: config, environment: environment,
      settings: settings.sandbox)
    if let scratch = connection.sandbox.scratch { grant?.writePaths.append(scratch.path) }
    WorkerGrant.write(grant, to: &writer)
    writer.end(at: start)
    let reply: WorkerReply
    do throws(PluginCallError) {
      var blamed: Int?
      reply = try connection.exchange(writer.bytes, call: "create", replies: 1, blamed: &blamed) { _ in }
    } catch {
      connection.destroy()
      throw HostError("cannot start a worker process for '\(plugin.id)': \(error)")
    }
    if reply.status == WorkerFrame.loadFailed {
      connection.destroy()
      throw HostError(reply.text, help: reply.extra.isEmpty ? nil : reply.extra)
    }
    if reply.status != fh_status(FH_OK) {
      connection.destroy()
      throw HostError(
        StoreFailure.configRefused(
          feature: plugin.id, config: config,
          PluginCallError(call: "create", status: reply.status, message: reply.text)))
    }
    if !reply.extra.isEmpty { SandboxWarnings.protectionsOff(reply.extra) }
  }

  deinit {
    destroy()
  }

  /// The worker's process id (also its process group's).
  public var workerProcessID: pid_t { connection.pid }

  /// How many of the worker's timers this side keeps an id of (fired ones are let go in time).
  public var timersKept: Int { connection.timersKept }

  /// How many exchanges with the worker calls and batches made so far (tests).
  var exchanges: Int { connection.exchanges }

  /// How many times emits were let through a full inbox because a call stalled (tests).
  var stallReleases: Int { connection.stallReleases.load(ordering: .relaxed) }

  public func start() throws(PluginCallError) { _ = try call(.start) }

  public func dispatch(_ json: String) throws(PluginCallError) -> Bool { try call(.dispatch, json).changed }

  /// Sends every action ahead of the answers and reads them as they come. `handle` gets each
  /// result in order; only for the last may it call this instance again (the others are answered
  /// while later actions are still in the worker).
  public func dispatch(_ actions: [String], handle: (Result<Bool, PluginCallError>) -> Void) {
    dispatch(actions, snapshots: .none, handle: handle)
  }

  /// The actions sent ahead of their answers, and a snapshot after each action at `snapshots`
  /// in the same stream: the worker encodes it right after that action, awake, where a call
  /// after the batch would wait for it to be woken (a journal's snapshot every 1,000 piped
  /// actions did), and a run of actions need not end where the journal wants a state.
  public func dispatch(
    _ actions: [String], snapshots: SnapshotPoints, handle: (Result<Bool, PluginCallError>) -> Void
  ) {
    var answered = 0
    // An action's result waiting for the state taken after it; the last action's, handled once
    // the exchange is over (its handler may call this instance), with the state after it.
    var held: Result<Bool, PluginCallError>?
    var last: Result<Bool, PluginCallError>?
    var lastState: String?
    // Each answer made a result once, here: an action's path is the hot one of a piped run.
    func next(_ result: Result<Bool, PluginCallError>) {
      let index = answered
      answered += 1
      if index == actions.count - 1 {
        last = result
      } else if snapshots.contains(index) {
        held = result
      } else {
        handle(result)
      }
    }
    // The state taken after the action answered last (nil when that failed, with `loss` when the
    // worker was lost taking it).
    func taken(_ state: String?, loss: PluginCallError?) {
      guard answered < actions.count else {
        lastState = state
        return
      }
      guard let result = held else { return }
      held = nil
      takenSnapshot = state
      // A state not taken for a loss is one `withSnapshot` meets, as a call would have.
      takenSnapshotLoss = loss
      defer {
        takenSnapshot = nil
        takenSnapshotLoss = nil
      }
      handle(result)
    }
    let calls = ActionsWithSnapshots(actions: actions, snapshots: snapshots)
    send(calls, count: calls.count) { reply, request in
      if request == .snapshot {
        taken(reply.status == fh_status(FH_OK) ? reply.text : nil, loss: nil)
        return
      }
      // Two calls, not one of a conditional: a success made here is known to need no destroying.
      if reply.status == fh_status(FH_OK) {
        next(.success(reply.changed))
      } else {
        next(.failure(PluginCallError(call: request.name, status: reply.status, message: reply.text)))
      }
    } fail: { error, request in
      // The snapshot's failure is not an action's: a `withSnapshot` after it meets it there.
      if request == .snapshot {
        taken(nil, loss: error.loss != nil && error.attribution == .thisCall ? error : nil)
      } else {
        next(.failure(error))
      }
    }
    if let held { handle(held) }
    guard let last else { return }
    takenSnapshot = lastState
    defer { takenSnapshot = nil }
    handle(last)
  }

  /// The state after a batch's action, taken in its stream: `withSnapshot` hands it over (once)
  /// while that action's result is handled, unless another call came first (every exchange
  /// forgets it).
  private var takenSnapshot: String?
  /// The loss met taking that state instead: `withSnapshot` throws it, as the call would have.
  private var takenSnapshotLoss: PluginCallError?

  /// In an exchange (a batch's result other than its last being handled), only a state the batch
  /// took can be handed over.
  public var canSnapshotNow: Bool {
    takenSnapshot != nil || takenSnapshotLoss != nil || !connection.isExchangingOnThisThread
  }

  public func withSnapshot<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(PluginCallError) -> R {
    if let loss = takenSnapshotLoss {
      takenSnapshotLoss = nil
      throw loss
    }
    var state: String
    if let taken = takenSnapshot {
      state = taken
      takenSnapshot = nil
    } else {
      state = try snapshot()
    }
    return state.withUTF8(body)
  }

  public func perform(_ calls: [InstanceCall], handle: (Result<InstanceAnswer, PluginCallError>) -> Void) {
    send(calls.lazy, count: calls.count) { reply, request in
      handle(reply.result(call: request.name).map { InstanceAnswer(changed: $0.changed, text: $0.text) })
    } fail: { error, _ in
      handle(.failure(error))
    }
  }

  /// Sends `calls` streamed: a few requests are written at a time, between the answers read,
  /// so the worker works through the ones before while the next are encoded and the answers
  /// handled (the ring bounds how far ahead the host gets). A lost worker fails the rest: the
  /// call it had begun with the loss, the ones after it as never reached (and not sent).
  /// `answer` gets each reply with its request, `fail` each call the worker did not answer.
  private func send<Calls: Sequence<InstanceCall>>(
    _ calls: Calls, count: Int, answer: (WorkerReply, WorkerFrame.Request) -> Void,
    fail: (PluginCallError, WorkerFrame.Request) -> Void
  ) {
    takenSnapshot = nil
    // The two buffers the groups take turns in, this instance's from batch to batch (taken, so a
    // batch sent from a handler has its own).
    var writer = FrameWriter()
    var outgoing: [UInt8] = []
    swap(&writer.bytes, &batchBuffers.0)
    swap(&outgoing, &batchBuffers.1)
    defer { keepBatchBuffers(&writer.bytes, &outgoing) }
    var requests: [WorkerFrame.Request] = []
    var iterator = calls.makeIterator()
    var lostWith: PluginCallError?
    var handled = 0
    // Each group twice the last (up to half a ring): the first goes at once, and the worker,
    // which answers faster than the store handles answers, then has many to work through
    // instead of waiting between small groups.
    var group = Self.firstGroup
    // The next requests into `writer`, in place of what it held; how many.
    func encodeGroup() -> Int {
      writer.bytes.removeAll(keepingCapacity: true)
      let before = requests.count
      while handled + requests.count < count, requests.count - before < group,
        writer.bytes.count < Int(WorkerConnection.ringCapacity / 2), let call = iterator.next()
      {
        let (request, text): (WorkerFrame.Request, String?) =
          switch call {
          case .dispatch(let json): (.dispatch, json)
          case .reduce(let json): (.reduce, json)
          case .render: (.render, nil)
          case .snapshot: (.snapshot, nil)
          }
        writer.frame(request, text)
        requests.append(request)
      }
      group = min(group * 2, Self.lastGroup)
      return requests.count - before
    }
    while handled < count {
      requests.removeAll(keepingCapacity: true)
      guard encodeGroup() > 0 else { return }
      if let lostWith {
        for request in requests { fail(lostWith.attributed(.notThisCall), request) }
        handled += requests.count
        continue
      }
      var answered = 0
      var blamed: Int?
      swap(&outgoing, &writer.bytes)
      do throws(PluginCallError) {
        _ = try connection.exchange(
          streaming: &outgoing, call: requests[0].name, replies: requests.count, blamed: &blamed,
          more: { buffer in
            // The two buffers take turns: no allocation a group.
            let added = encodeGroup()
            if added > 0 { swap(&buffer, &writer.bytes) }
            return added
          },
          each: { reply in
            answer(reply, requests[answered])
            answered += 1
          })
      } catch {
        for index in answered..<requests.count {
          let failure = PluginCallError(
            call: requests[index].name, status: error.status, message: error.message, loss: error.loss,
            attribution: error.loss == nil || index == blamed ? error.attribution : .notThisCall)
          fail(failure, requests[index])
        }
        if error.loss != nil { lostWith = error }
      }
      handled += requests.count
    }
  }

  /// Two buffers for a batch's groups, kept between batches up to the ring's size (a larger
  /// frame's are let go).
  private var batchBuffers: ([UInt8], [UInt8]) = ([], [])

  private func keepBatchBuffers(_ first: inout [UInt8], _ second: inout [UInt8]) {
    let limit = Int(WorkerConnection.ringCapacity)
    if first.capacity > limit { first = [] } else { first.removeAll(keepingCapacity: true) }
    if second.capacity > limit { second = [] } else { second.removeAll(keepingCapacity: true) }
    swap(&batchBuffers.0, &first)
    swap(&batchBuffers.1, &second)
  }

  /// Requests encoded at a time while streaming: first few, so that the worker starts at once.
  static let firstGroup = 64
  static let lastGroup = 4_096

  public func reduce(_ json: String) throws(PluginCallError) -> Bool { try call(.reduce, json).changed }

  public func snapshot() throws(PluginCallError) -> String { try call(.snapshot).text }

  public func restore(_ json: String) throws(PluginCallError) {
    takenSnapshot = nil
    // With its NUL: the worker hands the plugin the state where the frame holds it, not a copy.
    var writer = FrameWriter()
    let start = writer.begin(WorkerFrame.Request.restore.rawValue)
    writer.cString(json)
    writer.end(at: start)
    let name = WorkerFrame.Request.restore.name
    var blamed: Int?
    _ = try connection.exchange(writer.bytes, call: name, replies: 1, blamed: &blamed) { _ in }.result(call: name).get()
  }

  public func render() throws(PluginCallError) -> String { try call(.render).text }

  public func render(_ hints: RenderHints) throws(PluginCallError) -> String {
    hints.isEmpty ? try render() : try call(.renderWith, hints.json).text
  }

  /// Whether the worker said the plugin has no structured view: it is not asked again.
  private var offersNoStructuredView = false

  public func structuredView() throws(PluginCallError) -> String? {
    guard !offersNoStructuredView else { return nil }
    let reply = try call(.renderStructured)
    offersNoStructuredView = !reply.changed
    return reply.changed ? reply.text : nil
  }

  public func stop() throws(PluginCallError) { _ = try call(.stop) }

  /// Destroys the instance and ends the worker, reaping it; idempotent. Waits at most the call
  /// timeout for the worker's answer, then kills it.
  /// Ends a stuck call by killing the worker: the call reads as `crashed (signal 9, Killed)`.
  public func interrupt() { connection.interruptCall() }

  public func destroy() {
    connection.destroy()
  }

  /// What the worker process sees (tests): `{"pid":N,"fds":[...],"env":[NAMES]}`.
  public func probe() throws(PluginCallError) -> String { try call(.probe).text }

  /// Reused from call to call: a call allocates nothing of its own on the way out.
  private var callWriter = FrameWriter()

  private func call(_ request: WorkerFrame.Request, _ text: String? = nil) throws(PluginCallError) -> WorkerReply {
    takenSnapshot = nil
    var blamed: Int?
    let reply = try connection.call(request, text, writer: &callWriter, blamed: &blamed)
    // Room for the usual small frames is kept; a large action's is not.
    if callWriter.bytes.capacity > 1 << 16 { callWriter.bytes = [] }
    // Not through `result(call:)`: a `Result` of the reply copies its strings through the
    // runtime's generic witnesses, on every call.
    guard reply.status == fh_status(FH_OK) else {
      throw PluginCallError(call: request.name, status: reply.status, message: reply.text)
    }
    return reply
  }
}

/// A batch's actions as dispatch calls, each followed by a snapshot where one is wanted, without
/// an array of calls made of the actions.
private struct ActionsWithSnapshots: Sequence {
  let actions: [String]
  let snapshots: SnapshotPoints

  var count: Int { actions.count + snapshots.count(below: actions.count) }

  struct Iterator: IteratorProtocol {
    let batch: ActionsWithSnapshots
    var index = 0
    /// Whether the action at `index - 1` still has its snapshot to come.
    var snapshotDue = false

    mutating func next() -> InstanceCall? {
      if snapshotDue {
        snapshotDue = false
        return .snapshot
      }
      guard index < batch.actions.count else { return nil }
      defer { index += 1 }
      snapshotDue = batch.snapshots.contains(index)
      return .dispatch(batch.actions[index])
    }
  }

  func makeIterator() -> Iterator { Iterator(batch: self) }
}

/// One answer from the worker.
struct WorkerReply {
  var status: fh_status
  var changed: Bool
  var text: String
  var extra: String

  /// A `done` frame's answer: status OK, no text.
  static func done(changed: Bool) -> WorkerReply {
    WorkerReply(status: fh_status(FH_OK), changed: changed, text: "", extra: "")
  }

  func result(call: @autoclosure () -> String) -> Result<WorkerReply, PluginCallError> {
    status == fh_status(FH_OK) ? .success(self) : .failure(PluginCallError(call: call(), status: status, message: text))
  }
}
