import Dispatch
import FeatureABI
import HostKit
import Synchronization

/// Instances that are lost when a plan says so, as an instance in a crashed worker is: the
/// failing call and every later one throw a `PluginCallError` with the `loss`. Over in-process
/// instances, so recovery is tested without worker processes.
final class FaultPlan: Sendable {
  /// Which call is being made: its name, its action (dispatch and reduce) and how many calls of
  /// that name every instance of this plan made before it.
  struct Call: Sendable {
    let name: String
    let json: String?
    let count: Int
  }

  private struct Books {
    var calls: [String: Int] = [:]
    var made = 0
  }

  private let decide: @Sendable (Call) -> InstanceLoss?
  private let books = Mutex(Books())
  /// The action type whose dispatch hangs until the instance is interrupted (then lost, killed).
  let hangsOn: String?

  /// Whether a run of dispatches lost in its middle reports the unanswered ones as a worker
  /// does (`LossAttribution.unknown`: its answers died in its buffer), not one by one.
  let batchesLikeAWorker: Bool

  /// `decide` answers, for each call, whether the instance is lost in it (and how).
  init(
    hangingOn type: String? = nil, batchesLikeAWorker: Bool = false,
    _ decide: @escaping @Sendable (Call) -> InstanceLoss? = { _ in nil }
  ) {
    self.decide = decide
    hangsOn = type
    self.batchesLikeAWorker = batchesLikeAWorker
  }

  /// Loses the instance (by `loss`) in every dispatch of an action of type `type`.
  static func crashing(on type: String, _ loss: InstanceLoss = .signalled(11)) -> FaultPlan {
    FaultPlan { call in call.name == "dispatch" && call.json?.contains(#""type":"\#(type)""#) == true ? loss : nil }
  }

  /// Instances made so far (the first one and every restart).
  var made: Int { books.withLock { $0.made } }

  /// The factory whose instances follow this plan.
  var factory: InstanceFactory {
    InstanceFactory { plugin, config, target throws(HostError) in
      let base = try InstanceFactory.inProcess.makeInstance(of: plugin, config: config, target: target)
      self.books.withLock { $0.made += 1 }
      return FaultyInstance(base: base, plan: self)
    }
  }

  fileprivate func loss(in name: String, json: String? = nil) -> InstanceLoss? {
    let count = books.withLock { books in
      defer { books.calls[name, default: 0] += 1 }
      return books.calls[name, default: 0]
    }
    return decide(Call(name: name, json: json, count: count))
  }
}

/// One instance under a `FaultPlan`.
private final class FaultyInstance: InterruptibleInstance {
  private let base: any PluginInstance
  private let plan: FaultPlan
  private var lost: PluginCallError?
  private let interrupted = DispatchSemaphore(value: 0)

  init(base: any PluginInstance, plan: FaultPlan) {
    self.base = base
    self.plan = plan
  }

  var plugin: LoadedPlugin { base.plugin }

  /// Throws the loss when the instance is lost already (a call that never reached it), or is
  /// lost in this call.
  private func check(_ name: String, _ json: String? = nil) throws(PluginCallError) {
    if let lost {
      throw PluginCallError(
        call: name, status: lost.status, message: lost.message, loss: lost.loss, attribution: .notThisCall)
    }
    guard let loss = plan.loss(in: name, json: json) else { return }
    try lose(name, loss)
  }

  private func lose(_ name: String, _ loss: InstanceLoss) throws(PluginCallError) {
    // As a dead process: the plugin's code is gone, its effects with it.
    base.destroy()
    let error = PluginCallError(
      call: name, status: fh_status(FH_ERR_LIFECYCLE), message: "\(base.plugin.id) \(loss)", loss: loss)
    lost = error
    throw error
  }

  func start() throws(PluginCallError) {
    try check("start")
    try base.start()
  }
  func dispatch(_ json: String) throws(PluginCallError) -> Bool {
    try check("dispatch", json)
    if let type = plan.hangsOn, json.contains(#""type":"\#(type)""#) {
      // Stuck until interrupted, then killed as a worker would be.
      interrupted.wait()
      try lose("dispatch", .signalled(9))
    }
    return try base.dispatch(json)
  }

  func dispatch(_ actions: [String], handle: (Result<Bool, PluginCallError>) -> Void) {
    guard plan.batchesLikeAWorker else {
      for action in actions { handle(Result { () throws(PluginCallError) in try dispatch(action) }) }
      return
    }
    // A worker answers a run at its end: lost in it, it answers none of it, and which action
    // it was running is unknown.
    var results: [Result<Bool, PluginCallError>] = []
    for action in actions {
      do throws(PluginCallError) {
        results.append(.success(try dispatch(action)))
      } catch {
        guard error.loss != nil else {
          results.append(.failure(error))
          continue
        }
        let owed = actions.count > 1 ? error.attributed(.unknown) : error
        results = Array(repeating: .failure(owed), count: actions.count)
        break
      }
    }
    results.forEach(handle)
  }

  func interrupt() { interrupted.signal() }
  func reduce(_ json: String) throws(PluginCallError) -> Bool {
    try check("reduce", json)
    return try base.reduce(json)
  }
  func snapshot() throws(PluginCallError) -> String {
    try check("snapshot")
    return try base.snapshot()
  }
  func restore(_ json: String) throws(PluginCallError) {
    try check("restore")
    try base.restore(json)
  }
  func render() throws(PluginCallError) -> String {
    try check("render")
    return try base.render()
  }
  func stop() throws(PluginCallError) {
    try check("stop")
    try base.stop()
  }
  func destroy() { base.destroy() }
}

/// A clock for `RecoveryPolicy` that moves only when told.
final class ManualClock: Sendable {
  private let time = Mutex(Duration.zero)

  func advance(by duration: Duration) { time.withLock { $0 += duration } }

  var now: @Sendable () -> Duration { { self.time.withLock { $0 } } }
}
