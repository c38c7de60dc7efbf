import FeatureABI

extension ConformanceSuite {
  /// `bad-actions`: every bad action, through dispatch and through reduce, is refused with
  /// FH_ERR_BAD_ACTION and a message, and leaves the state as it was. The 10 MB ones go through
  /// dispatch only: a debug build parses each for a second, and reduce shares the parser anyway
  /// in every plugin seen so far.
  ///
  /// The instance is not settled first: what its effects emit is queued and never applied here,
  /// so only the calls below can change its state.
  static func checkBadActions(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    let instance = try run.startedInstance()
    defer { instance.destroy() }
    for input in BadInputs.actions(catalogue: catalogue) {
      let oversized = input.bytes.count >= BadInputs.oversizedBytes
      for call in oversized ? ["dispatch"] : ["dispatch", "reduce"] {
        run.progress("\(call) '\(input.id)'")
        let before = try CatalogueWalk.state(of: instance, after: "created")
        let result = call == "dispatch" ? instance.dispatch(bytes: input.bytes) : instance.reduce(bytes: input.bytes)
        try expectRefusal(
          result, of: input, by: call, want: fh_status(FH_ERR_BAD_ACTION), on: instance, stateBefore: before)
      }
    }
  }

  /// `restore-refuses-bad-state`: every bad state is refused with FH_ERR_BAD_STATE and a message,
  /// and the state stays as it was, on an instance not yet started and on a started one.
  static func checkRestoreRefusesBadState(_ run: ConformanceRun) throws(CheckFailure) {
    let unstarted = try run.makeInstance()
    defer { unstarted.destroy() }
    let started = try run.startedInstance()
    defer { started.destroy() }
    for (phase, instance) in [("before start", unstarted), ("while started", started)] {
      let good = try CatalogueWalk.state(of: instance, after: "created")
      for input in BadInputs.states(validSnapshot: good) {
        run.progress("restore '\(input.id)' \(phase)")
        try expectRefusal(
          instance.restore(bytes: input.bytes), of: input, by: "restore \(phase)", want: fh_status(FH_ERR_BAD_STATE),
          on: instance, stateBefore: good)
      }
    }
  }

  static func expectRefusal(
    _ result: CallResult, of input: BadInput, by call: String, want status: fh_status,
    on instance: ConformanceInstance, stateBefore before: [UInt8]
  ) throws(CheckFailure) {
    let shown = "'\(input.id)' \(ConformanceText.quote(bytes: input.bytes, limit: 50))"
    try expectRefusal(result, of: shown, by: call, want: status, on: instance, stateBefore: before)
  }

  /// `result` must be a refusal with `status` (and a message, unless `requireMessage` is false),
  /// and the state still `before`.
  static func expectRefusal(
    _ result: CallResult, of shown: String, by call: String, want status: fh_status,
    on instance: ConformanceInstance, stateBefore before: [UInt8], requireMessage: Bool = true
  ) throws(CheckFailure) {
    guard result.status == status else {
      throw CheckFailure(
        "\(call) of \(shown) returned \(result.described), want \(CallResult.statusName(status))")
    }
    guard !requireMessage || !result.message.trimmingWhitespace().isEmpty else {
      throw CheckFailure("\(call) refused \(shown) without a message: last_error() is empty")
    }
    let after = try CatalogueWalk.state(of: instance, after: "\(call) of \(shown)")
    guard after == before else {
      throw CheckFailure(
        "\(call) refused \(shown) but changed the state from \(ConformanceText.quote(bytes: before)) "
          + "to \(ConformanceText.quote(bytes: after))")
    }
  }
}
