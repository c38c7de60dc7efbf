import FeatureABI
import FeatureJSON

/// The checks of the rules feature_abi.h decides in its Conventions and Lifecycle: NULL strings,
/// strict members and settings, the lifecycle action's place, and last_error's lifetime.
extension ConformanceSuite {
  /// A member no feature takes, added to actions, states and configs.
  static let unknownMember = "zz_not_a_member"

  /// `null-arguments`: create with a NULL config gives FH_ERR_BAD_CONFIG; dispatch and reduce of
  /// a NULL action FH_ERR_BAD_ACTION, restore of a NULL state FH_ERR_BAD_STATE; each with a
  /// message, and the state unchanged.
  static func checkNullArguments(_ run: ConformanceRun) throws(CheckFailure) {
    run.progress("create(NULL config)")
    let created = try run.probeCreate(config: nil)
    guard created.status == fh_status(FH_ERR_BAD_CONFIG) else {
      throw CheckFailure("create with a NULL config returned \(created.described), want FH_ERR_BAD_CONFIG")
    }
    guard !created.message.trimmingWhitespace().isEmpty else {
      throw CheckFailure("create refused a NULL config without a message: last_error() is empty")
    }
    let instance = try run.startedInstance()
    defer { instance.destroy() }
    let calls: [(String, fh_status, () -> CallResult)] = [
      ("dispatch", fh_status(FH_ERR_BAD_ACTION), instance.dispatchNull),
      ("reduce", fh_status(FH_ERR_BAD_ACTION), instance.reduceNull),
      ("restore", fh_status(FH_ERR_BAD_STATE), instance.restoreNull),
    ]
    for (call, want, perform) in calls {
      run.progress("\(call)(NULL)")
      let before = try CatalogueWalk.state(of: instance, after: "created")
      try expectRefusal(perform(), of: "NULL", by: call, want: want, on: instance, stateBefore: before)
    }
  }

  /// `unknown-setting`: the config of the run plus a setting no feature reads is refused with
  /// FH_ERR_BAD_CONFIG, and the message names that setting.
  static func checkUnknownSetting(_ run: ConformanceRun) throws(CheckFailure) {
    var config = (try? JSONValue.parse(run.settings.config))?.objectValue ?? [:]
    config[unknownMember] = 1
    let text = JSONValue.object(config).serialized()
    run.progress("create(\(text))")
    let result = try run.probeCreate(config: text)
    guard result.status == fh_status(FH_ERR_BAD_CONFIG) else {
      throw CheckFailure(
        "create with the unknown setting '\(unknownMember)' returned \(result.described), want FH_ERR_BAD_CONFIG")
    }
    guard result.message.contains(unknownMember) else {
      throw CheckFailure(
        "create refused the unknown setting '\(unknownMember)' without naming it: \(result.described)")
    }
  }

  /// `extra-members`: every catalogued sample with one more member is refused with
  /// FH_ERR_BAD_ACTION, and the plugin's own snapshot with one more member with FH_ERR_BAD_STATE,
  /// the state unchanged.
  static func checkExtraMembers(_ run: ConformanceRun) throws(CheckFailure) {
    let (instance, samples) = try run.settledInstanceWithSamples()
    defer { instance.destroy() }
    for candidates in samples {
      for candidate in candidates {
        guard var object = (try? JSONValue.parse(candidate))?.objectValue else { continue }
        object[unknownMember] = 1
        let text = JSONValue.object(object).serialized()
        run.progress("dispatch \(text)")
        let before = try CatalogueWalk.state(of: instance, after: "created")
        try expectRefusal(
          instance.dispatch(text), of: text, by: "dispatch", want: fh_status(FH_ERR_BAD_ACTION), on: instance,
          stateBefore: before, requireMessage: false)
      }
    }
    let state = try CatalogueWalk.state(of: instance, after: "created")
    guard let text = String(validating: state, as: UTF8.self), var object = (try? JSONValue.parse(text))?.objectValue
    else {
      throw CheckFailure("the snapshot is not a UTF-8 JSON object: \(ConformanceText.quote(bytes: state))")
    }
    object[unknownMember] = 1
    let extended = JSONValue.object(object).serialized()
    run.progress("restore \(extended)")
    try expectRefusal(
      instance.restore(bytes: Array(extended.utf8)), of: ConformanceText.quote(extended), by: "restore",
      want: fh_status(FH_ERR_BAD_STATE), on: instance, stateBefore: state, requireMessage: false)
  }

  /// `lifecycle-action`: after start, dispatch refuses a catalogued action sent before the
  /// lifecycle action, and a second lifecycle action, with FH_ERR_LIFECYCLE; reduce (replay)
  /// takes `created` at any time.
  static func checkLifecycleAction(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    if let first = catalogue.first, let action = ActionSamples.candidates(for: first).first {
      run.progress("dispatch \(action) before created")
      let instance = try run.makeInstance()
      defer { instance.destroy() }
      let started = instance.start()
      guard started.isOK else { throw CheckFailure("start on a fresh instance failed: \(started.described)") }
      let before = try CatalogueWalk.state(of: instance, after: "start")
      try expectRefusal(
        instance.dispatch(action), of: "\(action) before the lifecycle action", by: "dispatch",
        want: fh_status(FH_ERR_LIFECYCLE), on: instance, stateBefore: before)
      let created = instance.dispatch(#"{"type":"created"}"#)
      guard created.isOK else {
        throw CheckFailure(#"{"type":"created"} was refused after a refused early action: "# + created.described)
      }
    }
    let instance = try run.startedInstance()
    defer { instance.destroy() }
    try run.settle(instance, after: "created")
    for second in [#"{"type":"created"}"#, #"{"type":"restored"}"#] {
      run.progress("dispatch \(second) after created")
      let before = try CatalogueWalk.state(of: instance, after: "created")
      try expectRefusal(
        instance.dispatch(second), of: "\(second) after created", by: "dispatch", want: fh_status(FH_ERR_LIFECYCLE),
        on: instance, stateBefore: before)
    }
    run.progress(#"reduce {"type":"created"} after created"#)
    let replayed = instance.reduce(bytes: Array(#"{"type":"created"}"#.utf8))
    guard replayed.isOK else {
      throw CheckFailure(#"reduce of {"type":"created"} (a replay) was refused: "# + replayed.described)
    }
  }

  /// `last-error`: "" after each successful call; the same text twice after a refusal; and
  /// calling it leaves the snapshot and the view returned just before it intact.
  static func checkLastError(_ run: ConformanceRun) throws(CheckFailure) {
    let instance = try run.makeInstance()
    defer { instance.destroy() }
    func expectEmpty(after call: String) throws(CheckFailure) {
      let text = instance.lastError()
      guard text.isEmpty else {
        throw CheckFailure(
          "last_error() after a successful \(call) is \(ConformanceText.quote(bytes: text)), want \"\"")
      }
    }
    try expectEmpty(after: "create")
    guard instance.start().isOK else { throw CheckFailure("start on a fresh instance failed") }
    try expectEmpty(after: "start")
    guard instance.dispatch(#"{"type":"created"}"#).isOK else {
      throw CheckFailure(#"the lifecycle action {"type":"created"} was refused"#)
    }
    try expectEmpty(after: "dispatch")
    // Whether the unknown type is refused, and with a message, is bad-actions' to judge.
    let refused = #"{"type":"\#(BadInputs.unknownType)"}"#
    let first = instance.dispatch(refused)
    let again = instance.lastError()
    guard first.isOK || String(decoding: again, as: UTF8.self) == first.message else {
      throw CheckFailure(
        "last_error() called twice after a refusal gave \(ConformanceText.quote(first.message)), then "
          + ConformanceText.quote(bytes: again))
    }
    for (call, render) in [("snapshot", false), ("render", true)] {
      run.progress("\(call), then last_error")
      let (status, pointer) = instance.rawOutput(render: render)
      guard status == fh_status(FH_OK), let pointer else {
        throw CheckFailure("\(call) returned \(CallResult.statusName(status)) or a NULL string")
      }
      let before = instance.bytes(at: pointer)
      try expectEmpty(after: call)
      let after = instance.bytes(at: pointer)
      guard after == before else {
        throw CheckFailure(
          "last_error() changed the string \(call) had just returned, from \(ConformanceText.quote(bytes: before)) "
            + "to \(ConformanceText.quote(bytes: after)); it must stay valid until the next call but last_error")
      }
    }
  }
}
