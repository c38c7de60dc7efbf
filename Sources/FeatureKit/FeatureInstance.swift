import FeatureABI
import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// The type-erased face of an instance, as the C glue sees it.
@usableFromInline
class AnyFeatureInstance {
  // Unchecked at run time: read by every call's `succeed`, and calls on one instance are
  // serialized by its host (feature_abi.h).
  @exclusivity(unchecked) var lastError = OwnedCString()

  func start() -> fh_status { fatalError("abstract") }
  @usableFromInline
  func dispatch(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status { fatalError("abstract") }
  @usableFromInline
  func reduce(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status { fatalError("abstract") }
  func snapshot(_ out: inout UnsafePointer<CChar>?) -> fh_status { fatalError("abstract") }
  func restore(_ json: UnsafePointer<CChar>) -> fh_status { fatalError("abstract") }
  func render(_ out: inout UnsafePointer<CChar>?) -> fh_status { fatalError("abstract") }
  /// render with `fh.render_options/1` hints (a JSON object). Default: as `render`.
  func render(options json: UnsafePointer<CChar>, _ out: inout UnsafePointer<CChar>?) -> fh_status { render(&out) }
  /// `fh.structured_view/1`: the view as items. Refused by features without it.
  func renderStructured(_ out: inout UnsafePointer<CChar>?) -> fh_status {
    fail(FH_ERR_INTERNAL, "this feature has no structured view")
  }
  func stop() -> fh_status { fatalError("abstract") }

  /// Records `message` as the answer to `last_error` and returns `status`.
  @usableFromInline
  final func fail(_ status: Int, _ message: String) -> fh_status {
    _ = lastError.set(message)
    return fh_status(status)
  }

  @usableFromInline
  final func succeed() -> fh_status {
    if lastError.value != nil { _ = lastError.set("") }
    return fh_status(FH_OK)
  }
}

/// One live copy of feature `F`: its decoded state, its effects, and the strings it hands out.
///
/// The dispatch path is inlinable: `FeatureExport.plugin` compiles it in the plugin, specialized for
/// the plugin's feature.
@usableFromInline
final class FeatureInstance<F: Feature>: AnyFeatureInstance {
  @usableFromInline
  enum Phase: String { case created, started, stopped }

  @usableFromInline let feature: F
  // Unchecked at run time (each access would cost ~80 instructions): calls on one instance are
  // serialized by its host (feature_abi.h), and nothing the feature's code is handed reaches them.
  @exclusivity(unchecked) @usableFromInline var state: F.State
  @exclusivity(unchecked) @usableFromInline var phase = Phase.created
  @usableFromInline let effects: EffectRunner<F.Action>
  @exclusivity(unchecked) private var output = OwnedCString()
  @usableFromInline let decoder = JSONValueDecoder()
  /// The action decoder generated for `F.Action` (`FlatActionDecodable`), when it has one.
  @usableFromInline let generatedDecode: ((String, ActionPayload) -> F.Action?)?
  private let encoder = JSONValueEncoder()
  /// The writer generated for `F.State` (`JSONObjectWritable`), when it has one.
  private let generatedWrite: ((F.State, Int, inout [UInt8]) -> Void)?
  /// The last encoding let go (an action changed the state, a restore replaced it): its storage
  /// is written over by the next encoding once nothing else holds it (the text handed out is let
  /// go at the next call), so a snapshot after every action allocates nothing. Unchecked as
  /// `state` is.
  @exclusivity(unchecked) @usableFromInline var spareEncoding: [UInt8] = []
  /// The reader generated for `F.State` (`FlatStateDecodable`), when it has one.
  let generatedRead: ((UnsafePointer<CChar>) -> F.State?)?
  /// The length of the state JSON last restored or snapshot, to reserve for the next snapshot.
  @exclusivity(unchecked) private var stateSize = 0
  /// The encoding of the current state with its NUL, when known: made by restore or by the last
  /// snapshot (of a state up to `restoreEncodesUpTo`), so a snapshot of a state already encoded
  /// costs no encoding (a probe's snapshot -> restore -> snapshot, a travel after a probe). Any
  /// action forgets it: only an action changes the state. Unchecked as `state` is.
  @exclusivity(unchecked) @usableFromInline var stateEncoding: [UInt8]?
  /// States up to this size are encoded in full by restore (about the cost of their structure);
  /// a larger one (100,000 URLs) only its structure, as its snapshot may never come.
  private static var restoreEncodesUpTo: Int { 64 << 10 }
  /// Whether dispatch has taken the lifecycle action.
  @exclusivity(unchecked) @usableFromInline var lifecycleSent = false

  init(feature: F, host: HostConnection) {
    self.feature = feature
    self.state = feature.initialState()
    self.effects = EffectRunner(host: host)
    self.generatedDecode = generatedDecoder(for: F.Action.self)
    self.generatedWrite = JSONBytesEncoder.objectWriter(for: F.State.self)
    self.generatedRead = generatedStateReader(for: F.State.self)
  }

  /// `state`'s JSON, by its generated writer when it has one.
  private func encoding(of state: F.State, capacity: Int) throws -> [UInt8] {
    if let generatedWrite {
      var bytes: [UInt8] = []
      swap(&bytes, &spareEncoding)
      generatedWrite(state, capacity, &bytes)
      return bytes
    }
    return try JSONBytesEncoder().encode(state, capacity: capacity)
  }

  /// Lets the current encoding go, keeping its storage for the next.
  @inlinable
  func forgetEncoding() {
    guard var encoding = stateEncoding else { return }
    stateEncoding = nil
    swap(&encoding, &spareEncoding)
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
    applyIfAllowed(json, flags: &flags, runsEffects: true)
  }

  override func reduce(_ json: UnsafePointer<CChar>, flags: inout UInt32) -> fh_status {
    applyIfAllowed(json, flags: &flags, runsEffects: false)
  }

  /// Dispatch (with effects) or reduce (without), when the phase allows it.
  @inlinable
  func applyIfAllowed(_ json: UnsafePointer<CChar>, flags: inout UInt32, runsEffects: Bool) -> fh_status {
    if runsEffects {
      guard phase == .started else { return lifecycleError("dispatch") }
      if !lifecycleSent, let refused = refusedBeforeLifecycle(json) { return refused }
    } else {
      guard phase != .stopped else { return lifecycleError("reduce") }
    }
    return decodeAndApply(json, flags: &flags, runsEffects: runsEffects)
  }

  /// Parses the action in place into its members (no tree, no dictionary), decodes it with the
  /// feature's synthesized Codable, and applies it. Called through the function `FeatureExport`
  /// builds where `F` is concrete, so this code runs specialized for the feature.
  @inlinable
  func decodeAndApply(_ json: UnsafePointer<CChar>, flags: inout UInt32, runsEffects: Bool) -> fh_status {
    if let generatedDecode, let scan = FlatActionScan(utf8CString: json),
      let action = generatedDecode(scan.tag, ActionPayload(.scan(scan)))
    {
      return apply(action, type: scan.tag, flags: &flags, runsEffects: runsEffects)
    }
    let flat: FlatObject
    do {
      guard let parsed = try FlatObject.parse(utf8CString: json) else {
        return decodeGeneral(json, flags: &flags, runsEffects: runsEffects)
      }
      flat = parsed
    } catch {
      return fail(FH_ERR_BAD_ACTION, "action is not valid JSON: \(error)")
    }
    guard case .string(let type)? = flat["type"] else {
      return fail(
        FH_ERR_BAD_ACTION, "action must be a JSON object with a string \"type\", got \(flat.value.serialized())")
    }
    if let generatedDecode, let action = generatedDecode(type, ActionPayload(.object(flat))) {
      return apply(action, type: type, flags: &flags, runsEffects: runsEffects)
    }
    let action: F.Action
    do {
      action = try decoder.decodeTagged(F.Action.self, from: flat)
      // feature_abi.h: a member the action's type does not have is refused, never dropped.
      if let extra = try unreadMember(of: flat.value, decodedAs: action) {
        return fail(FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) has no member '\(extra)'")
      }
    } catch {
      return refused(type, flat.value, error, flags: &flags, runsEffects: runsEffects)
    }
    return apply(action, type: type, flags: &flags, runsEffects: runsEffects)
  }

  /// A member of `value` that decoding `action` did not read, if any.
  @usableFromInline
  func unreadMember(of value: JSONValue, decodedAs action: F.Action) throws -> String? {
    UnreadMember.find(in: value, comparedTo: try encoder.encodeTagged(action))
  }

  /// Any other JSON document (an object of many members, or not an object): the general parser
  /// says what is wrong with it.
  @usableFromInline
  func decodeGeneral(_ json: UnsafePointer<CChar>, flags: inout UInt32, runsEffects: Bool) -> fh_status {
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
      if let extra = UnreadMember.find(in: value, comparedTo: try encoder.encodeTagged(action)) {
        return fail(FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) has no member '\(extra)'")
      }
    } catch {
      return refused(type, value, error, flags: &flags, runsEffects: runsEffects)
    }
    return apply(action, type: type, flags: &flags, runsEffects: runsEffects)
  }

  /// feature_abi.h's order for dispatch: the lifecycle action first, then never again. Checked
  /// before decoding until the lifecycle action came (so any other action is refused as out of
  /// order, whatever it holds), and by `apply` for a second one. Replay (reduce) takes any order.
  @usableFromInline
  func refusedBeforeLifecycle(_ json: UnsafePointer<CChar>) -> fh_status? {
    let type: String?
    if let scan = FlatActionScan(utf8CString: json) {
      type = scan.tag
    } else {
      type = (try? JSONValue.parse(utf8CString: json))?["type"]?.stringValue
    }
    // Not an action at all: decoding says what is wrong with it.
    guard let type, type != "created", type != "restored" else { return nil }
    return fail(
      FH_ERR_LIFECYCLE, "'\(type)' came before the lifecycle action ('created' or 'restored'), which comes first")
  }

  /// Refuses a second lifecycle action, and marks the first as taken.
  @inlinable
  func refusedLifecycle(_ type: String, runsEffects: Bool) -> fh_status? {
    guard runsEffects, type == "created" || type == "restored" else { return nil }
    guard lifecycleSent else {
      lifecycleSent = true
      return nil
    }
    return fail(FH_ERR_LIFECYCLE, "'\(type)' came after the lifecycle action; an instance takes one")
  }

  @usableFromInline
  func refused(_ type: String, _ value: JSONValue, _ error: any Error, flags: inout UInt32, runsEffects: Bool)
    -> fh_status
  {
    // A feature that does not model the lifecycle simply has nothing to do for it.
    if type == "created" || type == "restored" {
      if let extra = value.objectValue?.keys.sorted().first(where: { $0 != "type" }) {
        return fail(FH_ERR_BAD_ACTION, "the lifecycle action '\(type)' has no member '\(extra)'")
      }
      if let refused = refusedLifecycle(type, runsEffects: runsEffects) { return refused }
      flags = 0
      if runsEffects { runFeedback() }
      return succeed()
    }
    return fail(
      FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) was refused: \(describeDecodingError(error))")
  }

  /// Reduces a decoded action, then (unless replaying) starts its effects and the feedbacks of
  /// the new state. The feature says whether the state changed (`reduce(into:action:changed:)`):
  /// by default by comparing it with a copy, or without one when its reducer reports it.
  @inlinable
  func apply(_ action: F.Action, type: String, flags: inout UInt32, runsEffects: Bool) -> fh_status {
    if let refused = refusedLifecycle(type, runsEffects: runsEffects) { return refused }
    forgetEncoding()
    let effect: Effect<F.Action>
    var changed = false
    do {
      effect = try feature.reduce(into: &state, action: action, changed: &changed)
    } catch {
      return fail(FH_ERR_BAD_ACTION, "action '\(type)' of \(F.manifest.id) was refused: \(error)")
    }
    flags = changed ? UInt32(FH_DISPATCH_STATE_CHANGED) : 0
    guard runsEffects else { return succeed() }
    if !effect.operations.isEmpty { effects.run(effect, origin: fh_origin(FH_ORIGIN_EFFECT)) }
    if changed || type == "created" || type == "restored" { runFeedback() }
    return succeed()
  }

  private static var pacedFeedbackID: String { "featurekit.feedback" }

  /// Runs the feedback of the current state, paced by the feature's interval.
  @inlinable
  func runFeedback() {
    let effect = feature.feedback(state)
    let interval = feature.feedbackInterval
    guard interval > .zero else {
      if !effect.operations.isEmpty { effects.run(effect, origin: fh_origin(FH_ORIGIN_FEEDBACK)) }
      return
    }
    runPacedFeedback(effect, interval: interval)
  }

  @usableFromInline
  func runPacedFeedback(_ effect: Effect<F.Action>, interval: Duration) {
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
    // The last text handed out is valid only until this call (feature_abi.h): let it go first.
    output.clear()
    if let encoded = stateEncoding {
      stateSize = encoded.count - 1
      out = output.set(sharing: encoded)
      return succeed()
    }
    do {
      // Straight from the state to bytes, with room for the size last seen: no tree, no `String`.
      var bytes = try encoding(of: state, capacity: stateSize + stateSize / 8 + 1)
      stateSize = bytes.count
      bytes.append(0)
      // Kept for the next snapshot only when small: a large state is not held twice.
      if stateSize <= Self.restoreEncodesUpTo { stateEncoding = bytes }
      guard let text = output.set(sharing: consume bytes) else {
        stateEncoding = nil
        return fail(FH_ERR_INTERNAL, "cannot hold \(stateSize) bytes for the state of \(F.manifest.id)")
      }
      out = text
      return succeed()
    } catch {
      return fail(FH_ERR_INTERNAL, "cannot encode the state of \(F.manifest.id): \(error)")
    }
  }

  override func restore(_ json: UnsafePointer<CChar>) -> fh_status {
    guard phase != .stopped else { return lifecycleError("restore") }
    do {
      let length = strlen(json)
      // A flat state of plain members is read in place; its reader answers only when every
      // member is one the state has, so none is left unread.
      if let generatedRead, let restored = generatedRead(json) {
        try feature.validate(restored)
        forgetEncoding()
        var encoded = try encoding(of: restored, capacity: length + 1)
        encoded.append(0)
        (state, stateSize, stateEncoding) = (restored, length, encoded)
        return succeed()
      }
      let value = try JSONValue.parse(bytes: UnsafeRawBufferPointer(start: json, count: length))
      let restored = try decoder.decode(F.State.self, from: value)
      // Compared with the state's structure only: its arrays of scalars (which hold no members)
      // are not built at all. A small state is encoded in full, kept for the next snapshot.
      var encoded =
        length <= Self.restoreEncodesUpTo
        ? try encoding(of: restored, capacity: length + length / 8 + 1)
        : try JSONBytesEncoder().encodeStructure(restored)
      // A state given back byte for byte as it was encoded (a snapshot restored, as a probe or a
      // travel does) has exactly the members the state encodes: none was left unread.
      let asEncoded =
        length <= Self.restoreEncodesUpTo && encoded.count == length
        && encoded.withUnsafeBytes { bytes in bytes.baseAddress.map { memcmp($0, json, length) == 0 } ?? false }
      if !asEncoded {
        let structure = try encoded.withUnsafeBytes { try JSONValue.parseMembers(bytes: $0) }
        if let extra = UnreadMember.find(in: value, comparedTo: structure) {
          return fail(FH_ERR_BAD_STATE, "state refused by \(F.manifest.id): it has no member '\(extra)'")
        }
      }
      try feature.validate(restored)
      state = restored
      stateSize = length
      if length <= Self.restoreEncodesUpTo {
        encoded.append(0)
        stateEncoding = encoded
      } else {
        stateEncoding = nil
      }
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
    out = output.set(sharing: Self.cString(joining: feature.render(state)))
    return succeed()
  }

  /// `lines` joined by line breaks, with the NUL a C string ends in: one buffer, with no joined
  /// `String` and no copy of it between (the view is made for every new state while exploring).
  static func cString(joining lines: [String]) -> [UInt8] {
    var count = lines.count
    for line in lines { count += line.utf8.count }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    for (index, line) in lines.enumerated() {
      if index > 0 { bytes.append(0x0A) }
      bytes.append(contentsOf: line.utf8)
    }
    bytes.append(0)
    return bytes
  }

  override func render(options json: UnsafePointer<CChar>, _ out: inout UnsafePointer<CChar>?) -> fh_status {
    let options: RenderOptions
    do {
      options = RenderOptions(json: try JSONValue.parse(utf8CString: json))
    } catch {
      return fail(FH_ERR_INTERNAL, "render options are not valid JSON: \(error)")
    }
    out = output.set(sharing: Self.cString(joining: feature.render(state, options: options)))
    return succeed()
  }

  override func renderStructured(_ out: inout UnsafePointer<CChar>?) -> fh_status {
    guard let viewing = feature as? any StructuredViewFeature, let items = structuredViewItems(viewing, state: state)
    else {
      return fail(FH_ERR_INTERNAL, "\(F.manifest.id) has no structured view")
    }
    out = output.set(items.structuredViewJSON)
    return succeed()
  }

  @usableFromInline
  func lifecycleError(_ call: String) -> fh_status {
    fail(FH_ERR_LIFECYCLE, "\(call) is not allowed on an instance that is \(phase.rawValue)")
  }

  deinit {
    if phase == .started { effects.stop() }
  }
}

/// The generated decoder of `Action`, if it has one, as a function that answers an `Action`.
func generatedDecoder<Action>(for type: Action.Type) -> ((String, ActionPayload) -> Action?)? {
  guard let decodable = type as? any FlatActionDecodable.Type else { return nil }
  func make<D: FlatActionDecodable>(_ decodable: D.Type) -> (String, ActionPayload) -> Action? {
    precondition(D.self == Action.self, "the conformance found is Action's own")
    // The same type, so the same layout: no dynamic cast on every action.
    return { tag, payload in unsafeBitCast(D.decodeFlat(tag: tag, payload: payload), to: Action?.self) }
  }
  return make(decodable)
}
