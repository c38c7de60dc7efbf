import FeatureJSON

/// Work a reducer or feedback asks for. Effects are the only place for side effects; they report
/// back only by sending actions.
public struct Effect<Action: Sendable>: Sendable {
  @usableFromInline
  enum Operation: Sendable {
    case send([Action])
    /// `failure` turns an error the body threw into an action; nil: the error is logged.
    case run(
      id: String?, body: @Sendable (Send<Action>) async throws -> Void, failure: (@Sendable (any Error) -> Action)?)
    case cancel(id: String)
    case step(JSONValue)
  }

  @usableFromInline let operations: [Operation]

  @usableFromInline
  init(operations: [Operation]) { self.operations = operations }

  /// No work. Inlinable, so the common case costs a reducer nothing.
  @inlinable
  public static var none: Effect { Effect(operations: []) }

  /// Sends actions right away; they are queued by the host and applied after the current one.
  public static func send(_ actions: Action...) -> Effect { Effect(operations: [.send(actions)]) }

  /// Sends the actions of a list, in order, as `send(_:)` does.
  public static func send(contentsOf actions: [Action]) -> Effect { Effect(operations: [.send(actions)]) }

  /// Runs `body` asynchronously. With an `id`, a new run cancels the one still in flight under
  /// that id; what the cancelled run already sent may still be queued in the host, so a reducer
  /// checks that a result is the one it asked for (kittens matches the page's offset). Stopping
  /// the instance cancels every run; `send` then drops what it is given, so a late result never
  /// reaches the reducer.
  ///
  /// A plugin never fails silently: an error the body throws is sent as the action `failure`
  /// makes of it, or, without `failure`, logged to the host as an error line naming the run.
  /// Cancellation (stop, a newer run under the same id) is not a failure and is neither.
  public static func run(
    id: String? = nil,
    _ body: @escaping @Sendable (Send<Action>) async throws -> Void,
    catch failure: (@Sendable (any Error) -> Action)? = nil
  ) -> Effect {
    Effect(operations: [.run(id: id, body: body, failure: failure)])
  }

  /// Emits a navigation step: what happened (`"featurePicked"`), with fields the flow may read
  /// (`["feature": "counter"]`). The host's flow decides where to go; a host that does not
  /// navigate ignores it. List the step in the manifest's `steps`.
  public static func navigate(_ step: String, _ fields: [String: JSONValue] = [:]) -> Effect {
    var object = fields
    object["step"] = .string(step)
    return Effect(operations: [.step(.object(object))])
  }

  /// Cancels the run in flight under `id`, if any.
  public static func cancel(id: String) -> Effect { Effect(operations: [.cancel(id: id)]) }

  /// All of the given effects, in order.
  public static func merge(_ effects: Effect...) -> Effect {
    Effect(operations: effects.flatMap(\.operations))
  }
}

/// Sends actions from a running effect back to the store. Thread-safe.
public struct Send<Action: Sendable>: Sendable {
  let deliver: @Sendable (Action) -> Void

  public init(_ deliver: @escaping @Sendable (Action) -> Void) { self.deliver = deliver }

  /// Sends `action` unless the effect was cancelled or the instance stopped.
  public func callAsFunction(_ action: Action) {
    guard !Task.isCancelled else { return }
    deliver(action)
  }

  /// Sends all of `actions` in order, or none of them if the effect was cancelled: a cancel that
  /// lands between two of them cannot split the batch.
  public func callAsFunction(all actions: [Action]) {
    guard !Task.isCancelled else { return }
    for action in actions { deliver(action) }
  }
}
