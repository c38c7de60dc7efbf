import FeatureABI
import FeatureJSON

/// The type-erased face of an instance, as the C glue sees it.
class AnyFeatureInstance {
  var lastError = OwnedCString()

  func start() -> fh_status { fatalError("abstract") }
  func dispatch(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status { fatalError("abstract") }
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
    let value: JSONValue
    do {
      value = try JSONValue.parse(utf8CString: json)
    } catch {
      return fail(FH_ERR_BAD_ACTION, "action is not valid JSON: \(error)")
    }
    guard let type = value["type"]?.stringValue else {
      return fail(FH_ERR_BAD_ACTION, "action must be a JSON object with a string \"type\", got \(value.serialized())")
    }
    let action: F.Action
    do {
      action = try decoder.decodeTagged(F.Action.self, from: value)
    } catch {
      // A feature that does not model the lifecycle simply has nothing to do for it.
      if type == "created" || type == "restored" {
        effects.run(feature.feedback(state), origin: fh_origin(FH_ORIGIN_FEEDBACK))
        return succeed()
      }
      return fail(FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) was refused: \(describeDecodingError(error))")
    }
    let before = state
    let effect = feature.reduce(into: &state, action: action)
    let changed = state != before
    flags = changed ? UInt32(FH_DISPATCH_STATE_CHANGED) : 0
    effects.run(effect, origin: fh_origin(FH_ORIGIN_EFFECT))
    if changed || type == "created" || type == "restored" {
      effects.run(feature.feedback(state), origin: fh_origin(FH_ORIGIN_FEEDBACK))
    }
    return succeed()
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
