/// One live instance of a feature, as the engine sees it: the ABI's calls in Swift.
///
/// The `Store`, journals, replay, navigation and Benchmarks talk to this interface only; where the
/// plugin actually runs (in this process, in a worker process, behind a reloader) is the business
/// of the implementation. Calls on one instance must be serialized by its owner (a store calls
/// from its own thread); callbacks come back through the `InstanceCallbackTarget` it was made with.
public protocol PluginInstance: AnyObject {
  /// The plugin this instance runs.
  var plugin: LoadedPlugin { get }
  func start() throws(PluginCallError)
  /// Reduces one action; returns whether the plugin reports the state as changed.
  func dispatch(_ json: String) throws(PluginCallError) -> Bool
  /// Reduces several actions in order, as `dispatch` would one by one, handing each result to
  /// `handle` in order. An instance in another process sends them together. `handle` may call
  /// this instance again only for the last result.
  func dispatch(_ actions: [String], handle: (Result<Bool, PluginCallError>) -> Void)
  /// `dispatch(_:handle:)`, and the state after each action at `snapshots` taken in the same go:
  /// while `handle` has that action's result, `withSnapshot` hands that state over without
  /// another call (a worker encodes it while it is still awake, instead of being woken for it).
  /// The journal's periodic snapshots fall there.
  func dispatch(_ actions: [String], snapshots: SnapshotPoints, handle: (Result<Bool, PluginCallError>) -> Void)
  /// Whether `withSnapshot` may be called now. An instance in another process takes no call while
  /// `handle` has a result of a batch other than its last; it then has the state only where the
  /// batch took it (`snapshots`), and a snapshot wanted elsewhere waits for a result that can.
  var canSnapshotNow: Bool { get }
  /// Makes `calls` in order, as one by one, handing each answer to `handle` in order. An
  /// instance in another process sends them ahead of their answers (replay, restore, `:goto`).
  /// After a failure the rest fail too, as not made: in this process they are not; in another
  /// they may have been made already, so the state after a failed batch is the caller's to
  /// discard or restore. A lost instance fails the call that brought it down with `.thisCall`,
  /// the later ones `.notThisCall`. `handle` may not call this instance.
  func perform(_ calls: [InstanceCall], handle: (Result<InstanceAnswer, PluginCallError>) -> Void)
  /// Reduces one action without effects or feedbacks (replay, time travel); returns whether the
  /// state changed.
  func reduce(_ json: String) throws(PluginCallError) -> Bool
  func snapshot() throws(PluginCallError) -> String
  /// The state JSON handed to `body` (valid during it only): where the instance holds the bytes
  /// already, without a copy, so a large state is not held twice to be written once.
  func withSnapshot<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(PluginCallError) -> R
  func restore(_ json: String) throws(PluginCallError)
  func render() throws(PluginCallError) -> String
  /// The view drawn with `hints` (`fh.render_options/1`); `render()` where the plugin does not
  /// offer the extension or there is no hint.
  func render(_ hints: RenderHints) throws(PluginCallError) -> String
  /// The view as `fh.structured_view/1` JSON (text lines and images), or nil when the plugin
  /// does not offer that extension.
  func structuredView() throws(PluginCallError) -> String?
  func stop() throws(PluginCallError)
  /// Destroys the plugin's instance and frees its callbacks; idempotent. Every call after it
  /// fails with `FH_ERR_LIFECYCLE`. Call it after `stop` (or instead of it for an unstarted one).
  func destroy()
}

extension PluginInstance {
  /// Instances that cannot pass hints on draw the plain view.
  public func render(_ hints: RenderHints) throws(PluginCallError) -> String { try render() }
  /// Instances that cannot reach the extension have none.
  public func structuredView() throws(PluginCallError) -> String? { nil }

  /// Instances whose state arrives as a `String` hand its bytes on.
  public func withSnapshot<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(PluginCallError) -> R {
    var state = try snapshot()
    return state.withUTF8(body)
  }

  /// One call after the other, none after a failure.
  public func perform(_ calls: [InstanceCall], handle: (Result<InstanceAnswer, PluginCallError>) -> Void) {
    var failed: PluginCallError?
    for call in calls {
      if let failed {
        handle(.failure(failed.attributed(.notThisCall)))
        continue
      }
      do throws(PluginCallError) {
        switch call {
        case .dispatch(let json): handle(.success(InstanceAnswer(changed: try dispatch(json))))
        case .reduce(let json): handle(.success(InstanceAnswer(changed: try reduce(json))))
        case .render: handle(.success(InstanceAnswer(text: try render())))
        case .snapshot: handle(.success(InstanceAnswer(text: try snapshot())))
        }
      } catch {
        failed = PluginCallError(
          call: error.call, status: error.status, message: "not made: an earlier call of its batch failed (\(error))")
        handle(.failure(error))
      }
    }
  }

  /// Instances that answer `withSnapshot` at once need nothing taken ahead.
  public func dispatch(
    _ actions: [String], snapshots: SnapshotPoints, handle: (Result<Bool, PluginCallError>) -> Void
  ) {
    dispatch(actions, handle: handle)
  }

  /// Instances that answer `withSnapshot` at once take it any time.
  public var canSnapshotNow: Bool { true }

  /// One `dispatch` after the other.
  public func dispatch(_ actions: [String], handle: (Result<Bool, PluginCallError>) -> Void) {
    for action in actions {
      do throws(PluginCallError) {
        handle(.success(try dispatch(action)))
      } catch {
        handle(.failure(error))
      }
    }
  }
}

/// One call of a batch (`PluginInstance.perform`).
public enum InstanceCall: Sendable, Equatable {
  case dispatch(String)
  case reduce(String)
  case render
  case snapshot
}

/// What a call of a batch answered: `changed` for dispatch and reduce, `text` the view or state.
public struct InstanceAnswer: Sendable, Equatable {
  public var changed: Bool
  public var text: String

  public init(changed: Bool = false, text: String = "") {
    self.changed = changed
    self.text = text
  }
}

/// Where an emitted action came from, as the plugin said (`fh_origin`).
public enum EmitOrigin: Sendable, Equatable {
  case effect, feedback
}

/// A plugin's log level (`fh_log_level`), ordered by severity.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
  case debug, info, warning, error

  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

  public var description: String {
    switch self {
    case .debug: "debug"
    case .info: "info"
    case .warning: "warning"
    case .error: "error"
    }
  }
}

/// Receives the callbacks of one instance. Called from any thread, until the instance's `stop`
/// returned (later calls are the plugin breaking the ABI; a target counts or ignores them).
public protocol InstanceCallbackTarget: AnyObject, Sendable {
  func instanceEmitted(_ json: String, origin: EmitOrigin)
  /// Actions emitted one after the other, taken as `instanceEmitted` one by one would take them:
  /// a worker's listener hands over those it read together, so they are queued in one go.
  func instanceEmitted(_ emits: [InstanceEmit])
  func instanceLogged(level: LogLevel, message: String)
  func instanceEffectBegan()
  func instanceEffectEnded()
  /// A navigation step through `fh.navigation/1`.
  func instanceEmittedStep(_ json: String)
  /// A timer through `fh.clock/1`: `actions` is one action object or an array of them. Returns
  /// the timer's id, 0 when refused.
  func instanceScheduled(after nanoseconds: UInt64, actions: String, origin: EmitOrigin) -> UInt64
  /// Cancels a timer through `fh.clock/1`.
  func instanceCancelledTimer(_ id: UInt64)
  /// Whether a timer this target scheduled has neither fired nor been cancelled (what an
  /// instance in another process keeps of its timers can then be let go).
  func instanceTimerPending(_ id: UInt64) -> Bool
  /// The sandbox refused the plugin something it did not declare (a worker's plugin only).
  func instanceRefused(_ refusal: SandboxRefusal)
  /// The instance's process was lost while no call was made (a worker's only): the next call
  /// throws the loss, so the owner may make one now rather than wait for one.
  func instanceLostBetweenCalls()
  /// Asked before more callbacks of the plugin's own threads are delivered (a worker's only):
  /// waits at most `atMost` while the target holds as many emitted actions as it wants queued.
  /// True when more may come; false when it still holds that many.
  func instanceWaitForRoom(atMost: Duration) -> Bool
}

extension InstanceCallbackTarget {
  /// Targets that do not navigate ignore steps.
  public func instanceEmittedStep(_ json: String) {}
  /// Targets without a clock refuse timers.
  public func instanceScheduled(after nanoseconds: UInt64, actions: String, origin: EmitOrigin) -> UInt64 { 0 }
  public func instanceCancelledTimer(_ id: UInt64) {}
  /// Targets without a clock have no timer pending.
  public func instanceTimerPending(_ id: UInt64) -> Bool { false }
  /// Targets that do not report refusals ignore them.
  public func instanceRefused(_ refusal: SandboxRefusal) {}
  /// Targets that do not recover learn of a loss at their next call.
  public func instanceLostBetweenCalls() {}
  /// Targets without an inbox take everything at once.
  public func instanceWaitForRoom(atMost: Duration) -> Bool { true }
  /// One at a time.
  public func instanceEmitted(_ emits: [InstanceEmit]) {
    for emit in emits { instanceEmitted(emit.json, origin: emit.origin) }
  }
}

/// An action a plugin emitted, and whether from an effect or a feedback.
public struct InstanceEmit: Sendable {
  public var json: String
  public var origin: EmitOrigin

  public init(_ json: String, origin: EmitOrigin) {
    self.json = json
    self.origin = origin
  }
}

/// The target of an instance whose callbacks nobody wants: a replay, a scratch instance, a
/// benchmark. It runs no effects, so nothing should call back; whatever does is ignored.
public final class SilentTarget: InstanceCallbackTarget {
  public init() {}
  public func instanceEmitted(_ json: String, origin: EmitOrigin) {}
  public func instanceLogged(level: LogLevel, message: String) {}
  public func instanceEffectBegan() {}
  public func instanceEffectEnded() {}
}
