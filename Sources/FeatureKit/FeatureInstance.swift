import FeatureABI
import FeatureJSON

/// The type-erased face of an instance, as the C glue sees it.
class AnyFeatureInstance {
  var lastError = OwnedCString()

  func start() -> fh_status { fatalError("abstract") }
  func dispatch(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status { fatalError("abstract") }
  func reduce(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status { fatalError("abstract") }
  func snapshot(_ out: inout UnsafePointer<CChar>?) -> fh_status { fatalError("abstract") }
  func restore(_ json: UnsafePointer<CChar>) -> fh_status { fatalError("abstract") }
  func render(_ out: inout UnsafePointer<CChar>?) -> fh_status { fatalError("abstract") }
  func stop() -> fh_status { fatalError("abstract") }

  /// Records `message` as the answer to `last_error` and returns `status`.
  func fail(_ status: Int, _ message: String) -> fh_status {
    _ = lastError.set(message)
    return fh_status(status)
  }

  func succeed() -> fh_status {
    if lastError.value != nil { _ = lastError.set("") }
    return fh_status(FH_OK)
  }
}

/// One live copy of feature `F`: its decoded state, its effects, and the strings it hands out.
final class FeatureInstance<F: Feature>: AnyFeatureInstance {
  private enum Phase: String { case created, started, stopped }

  private let feature: F
  private var state: F.State
  private var phase = Phase.created
  private let effects: EffectRunner<F.Action>
  private var output = OwnedCString()
  private let decoder = JSONValueDecoder()
  private let encoder = JSONValueEncoder()
  private var memo = ActionMemo<F.Action>()
  /// Whether dispatch has taken the lifecycle action.
  private var lifecycleSent = false

  init(feature: F, host: HostConnection) {
    self.feature = feature
    self.state = feature.initialState()
    self.effects = EffectRunner(host: host)
  }

  override func start() -> fh_status {
    guard phase == .created else { return lifecycleError("start") }
    phase = .started
    effects.start()
    return succeed()
  }

  override func stop() -> fh_status {
    guard phase == .started else { return lifecycleError("stop") }
    phase = .stopped
    effects.stop()
    return succeed()
  }

  override func dispatch(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status {
    guard phase == .started else { return lifecycleError("dispatch") }
    return decodeAndApply(json, flags: &flags, runsEffects: true)
  }

  override func reduce(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status {
    guard phase != .stopped else { return lifecycleError("reduce") }
    return decodeAndApply(json, flags: &flags, runsEffects: false)
  }

  private func decodeAndApply(_ json: UnsafePointer<CChar>, flags: inout UInt32, runsEffects: Bool) -> fh_status {
    let key = ActionMemo<F.Action>.key(json)
    if let key, let known = memo.lookup(json, hash: key.hash, length: key.length) {
      if let refused = lifecycleOrder(known.type, runsEffects: runsEffects) { return refused }
      return apply(known.action, type: known.type, flags: &flags, runsEffects: runsEffects)
    }
    let value: JSONValue
    do {
      value = try JSONValue.parse(utf8CString: json)
    } catch {
      return fail(FH_ERR_BAD_ACTION, "action is not valid JSON: \(error)")
    }
    guard let type = value["type"]?.stringValue else {
      return fail(FH_ERR_BAD_ACTION, "action must be a JSON object with a string \"type\", got \(value.serialized())")
    }
    if let refused = lifecycleOrder(type, runsEffects: runsEffects) { return refused }
    let action: F.Action
    do {
      action = try decoder.decodeTagged(F.Action.self, from: value)
      if let extra = UnreadMember.find(in: value, comparedTo: try encoder.encodeTagged(action)) {
        return fail(FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) has no member '\(extra)'")
      }
    } catch {
      // A feature that does not model the lifecycle simply has nothing to do for it.
      if type == "created" || type == "restored" {
        if let extra = value.objectValue?.keys.sorted().first(where: { $0 != "type" }) {
          return fail(FH_ERR_BAD_ACTION, "the lifecycle action '\(type)' has no member '\(extra)'")
        }
        flags = 0
        if runsEffects { runFeedback() }
        return succeed()
      }
      return fail(
        FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) was refused: \(describeDecodingError(error))")
    }
    if let key { memo.store(json, hash: key.hash, length: key.length, type: type, action: action) }
    return apply(action, type: type, flags: &flags, runsEffects: runsEffects)
  }

  /// feature_abi.h's order for dispatch: the lifecycle action first, then never again. The
  /// refusal, or nil when `type` may come now. Replay (reduce) takes any order.
  private func lifecycleOrder(_ type: String, runsEffects: Bool) -> fh_status? {
    guard runsEffects else { return nil }
    let isLifecycle = type == "created" || type == "restored"
    guard isLifecycle == lifecycleSent else {
      lifecycleSent = true
      return nil
    }
    return fail(
      FH_ERR_LIFECYCLE,
      lifecycleSent
        ? "'\(type)' came after the lifecycle action; an instance takes one"
        : "'\(type)' came before the lifecycle action ('created' or 'restored'), which comes first")
  }

  /// Reduces a decoded action, then (unless replaying) starts its effects and the feedbacks of
  /// the new state.
  private func apply(_ action: F.Action, type: String, flags: inout UInt32, runsEffects: Bool) -> fh_status {
    let before = state
    let effect: Effect<F.Action>
    do {
      effect = try feature.reduce(into: &state, action: action)
    } catch {
      state = before
      return fail(FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) was refused: \(error)")
    }
    let changed = state != before
    flags = changed ? UInt32(FH_DISPATCH_STATE_CHANGED) : 0
    guard runsEffects else { return succeed() }
    effects.run(effect, origin: fh_origin(FH_ORIGIN_EFFECT))
    if changed || type == "created" || type == "restored" { runFeedback() }
    return succeed()
  }

  private static var pacedFeedbackID: String { "featurekit.feedback" }

  /// Runs the feedback of the current state, paced by the feature's interval.
  private func runFeedback() {
    let effect = feature.feedback(state)
    let interval = feature.feedbackInterval
    guard interval > .zero else {
      effects.run(effect, origin: fh_origin(FH_ORIGIN_FEEDBACK))
      return
    }
    var actions: [F.Action] = []
    var others: [Effect<F.Action>.Operation] = []
    for operation in effect.operations {
      if case .send(let sent) = operation { actions += sent } else { others.append(operation) }
    }
    // On the host's clock when it keeps one, so a test can move time instead of waiting for it.
    if effects.hostKeepsTime && effects.pace(actions, after: interval, origin: fh_origin(FH_ORIGIN_FEEDBACK)) {
      effects.run(Effect(operations: others), origin: fh_origin(FH_ORIGIN_FEEDBACK))
      return
    }
    // One pending delivery, replaced by every new state: the latest state's feedback wins.
    let delivery: Effect<F.Action> =
      actions.isEmpty
      ? .cancel(id: Self.pacedFeedbackID)
      : .run(id: Self.pacedFeedbackID) { [actions] send in
        try await Task.sleep(for: interval)
        send(all: actions)
      }
    effects.run(Effect(operations: others + delivery.operations), origin: fh_origin(FH_ORIGIN_FEEDBACK))
  }

  override func snapshot(_ out: inout UnsafePointer<CChar>?) -> fh_status {
    do {
      out = output.set(try encoder.encode(state).serialized())
      return succeed()
    } catch {
      return fail(FH_ERR_INTERNAL, "cannot encode the state of \(F.manifest.id): \(error)")
    }
  }

  override func restore(_ json: UnsafePointer<CChar>) -> fh_status {
    guard phase != .stopped else { return lifecycleError("restore") }
    do {
      let value = try JSONValue.parse(utf8CString: json)
      let restored = try decoder.decode(F.State.self, from: value)
      if let extra = UnreadMember.find(in: value, comparedTo: try encoder.encode(restored)) {
        return fail(FH_ERR_BAD_STATE, "state refused by \(F.manifest.id): it has no member '\(extra)'")
      }
      try feature.validate(restored)
      state = restored
      return succeed()
    } catch let error as JSONParseError {
      return fail(FH_ERR_BAD_STATE, "state is not valid JSON: \(error)")
    } catch let error as FeatureError {
      return fail(FH_ERR_BAD_STATE, "state refused by \(F.manifest.id): \(error.message)")
    } catch {
      return fail(FH_ERR_BAD_STATE, "state refused by \(F.manifest.id): \(describeDecodingError(error))")
    }
  }

  override func render(_ out: inout UnsafePointer<CChar>?) -> fh_status {
    out = output.set(feature.render(state).joined(separator: "\n"))
    return succeed()
  }

  private func lifecycleError(_ call: String) -> fh_status {
    fail(FH_ERR_LIFECYCLE, "\(call) is not allowed on an instance that is \(phase.rawValue)")
  }

  deinit {
    if phase == .started { effects.stop() }
  }
}
