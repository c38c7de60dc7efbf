import Dispatch
import FeatureABI
import FeatureJSON

/// Runs an instance's effects and delivers what they send, until stop.
///
/// Emits happen under the lock that `stop` takes to close the gate, so once `stop` returns
/// nothing more reaches the host, whatever a cancelled task still does.
@usableFromInline
final class EffectRunner<Action: Codable & Sendable>: Sendable {
  private struct Running {
    var open = false
    var nextKey: UInt64 = 0
    var tasks: [UInt64: Task<Void, Never>] = [:]
    var keysByID: [String: UInt64] = [:]
    /// The host timer delivering the latest paced feedback, 0 when none.
    var pacedTimer: UInt64 = 0
  }

  private let host: HostConnection
  private let running = Locked(Running())
  private let finished = DispatchGroup()

  init(host: HostConnection) { self.host = host }

  /// Opens the gate: from now on effects may run and emit.
  func start() { running.withLock { $0.open = true } }

  /// Closes the gate, cancels every run, and waits (bounded) for them to wind down.
  func stop() {
    running.withLock { running in
      running.open = false
      for task in running.tasks.values { task.cancel() }
      running.keysByID.removeAll()
    }
    guard finished.wait(timeout: .now() + .seconds(2)) == .timedOut else { return }
    let left = running.withLock { $0.tasks.count }
    // Still inside stop, so the host may hear it; what is left runs on, unheard.
    host.log(
      fh_log_level(FH_LOG_WARNING),
      "\(left) effect(s) still running 2 s after stop were left behind: an effect should end when it is cancelled")
  }

  /// Whether paced feedback can use the host's clock.
  var hostKeepsTime: Bool { host.keepsTime }

  /// Delivers `actions` after `interval` on the host's clock, replacing the delivery still pending
  /// (the latest state's feedback wins); no actions just cancels it. False when the host refused
  /// the timer: keep time without it.
  func pace(_ actions: [Action], after interval: Duration, origin: fh_origin) -> Bool {
    // A settled state's feedback (every action once settled): cancel what is pending, encode nothing.
    if actions.isEmpty {
      running.withLock { running in
        guard running.open, running.pacedTimer != 0 else { return }
        host.cancelTimer(running.pacedTimer)
        running.pacedTimer = 0
      }
      return true
    }
    let encoder = JSONValueEncoder()
    let json: String
    do {
      json = try JSONValue.array(actions.map { try encoder.encodeTagged($0) }).serialized()
    } catch {
      log(fh_log_level(FH_LOG_ERROR), "cannot encode feedback actions: \(error)")
      return true
    }
    let nanoseconds =
      UInt64(max(0, interval.components.seconds)) * 1_000_000_000
      + UInt64(max(0, interval.components.attoseconds) / 1_000_000_000)
    return running.withLock { running in
      guard running.open else { return true }
      if running.pacedTimer != 0 { host.cancelTimer(running.pacedTimer) }
      running.pacedTimer = actions.isEmpty ? 0 : host.schedule(after: nanoseconds, json, origin: origin)
      return actions.isEmpty || running.pacedTimer != 0
    }
  }

  /// Starts the work `effect` describes. Actions it sends are emitted with `origin`.
  @usableFromInline
  func run(_ effect: Effect<Action>, origin: fh_origin) {
    guard !effect.operations.isEmpty else { return }
    for operation in effect.operations {
      switch operation {
      case .send(let actions):
        for action in actions { emit(action, origin: origin) }
      case .cancel(let id):
        running.withLock { running in
          if let key = running.keysByID.removeValue(forKey: id) { running.tasks[key]?.cancel() }
        }
      case .run(let id, let body, let failure):
        launch(id: id, origin: origin, body: body, failure: failure)
      case .step(let step):
        let json = step.serialized()
        running.withLock { running in
          if running.open { host.emitStep(json) }
        }
      }
    }
  }

  private func launch(
    id: String?, origin: fh_origin, body: @escaping @Sendable (Send<Action>) async throws -> Void,
    failure: (@Sendable (any Error) -> Action)?
  ) {
    running.withLock { running in
      guard running.open else { return }
      host.effectBegan()
      finished.enter()
      let key = running.nextKey
      running.nextKey += 1
      if let id {
        if let previous = running.keysByID[id] { running.tasks[previous]?.cancel() }
        running.keysByID[id] = key
      }
      // Created under the lock, so the task cannot finish before it is recorded.
      let send = Send<Action> { action in self.emit(action, origin: origin) }
      running.tasks[key] = Task(executorPreference: EffectExecutor.shared) { [self] in
        do {
          try await body(send)
        } catch {
          self.report(error, of: id, failure: failure, send: send)
        }
        self.finish(key)
      }
    }
  }

  /// Reports an error a run threw: as the feature's action, else as an error log line. A
  /// cancelled run reports nothing (its error is the cancellation, and `send` drops anyway).
  private func report(
    _ error: any Error, of id: String?, failure: (@Sendable (any Error) -> Action)?, send: Send<Action>
  ) {
    guard !(error is CancellationError), !Task.isCancelled else { return }
    if let failure {
      send(failure(error))
    } else {
      log(fh_log_level(FH_LOG_ERROR), "effect \(id.map { "'\($0)' " } ?? "")failed: \(error)")
    }
  }

  /// Logs through the host while the gate is open: nothing reaches the host after stop.
  private func log(_ level: fh_log_level, _ message: String) {
    running.withLock { running in
      if running.open { host.log(level, message) }
    }
  }

  private func finish(_ key: UInt64) {
    running.withLock { running in
      running.tasks[key] = nil
      if let id = running.keysByID.first(where: { $0.value == key })?.key { running.keysByID[id] = nil }
      if running.open { host.effectEnded() }
    }
    finished.leave()
  }

  private func emit(_ action: Action, origin: fh_origin) {
    let json: String
    do {
      json = try JSONValueEncoder().encodeTagged(action).serialized()
    } catch {
      log(fh_log_level(FH_LOG_ERROR), "cannot encode action \(action): \(error)")
      return
    }
    running.withLock { running in
      if running.open { host.emit(json, origin: origin) }
    }
  }
}
