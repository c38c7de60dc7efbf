import FeatureABI

/// A walk through the catalogue on one fresh instance: start and `created`, then each catalogued
/// action with the first sample the plugin accepts, applying what it emits and settling after
/// each. The same walk on two instances of a deterministic plugin gives the same steps.
struct CatalogueWalk {
  /// One input sent and what followed: its status and the state once settled.
  struct Step: Equatable {
    var input: String
    var status: fh_status
    var state: [UInt8]
  }

  /// A state the walk reached: after an input, or after an action the plugin emitted.
  struct Visit {
    /// What led here: `created`, an input, or `'<action>' emitted after <input>`.
    var label: String
    /// Whether the instance had settled (nothing queued, no effect in flight).
    var settled: Bool
    var instance: ConformanceInstance
  }

  /// Walks on a new instance; `visit` sees every state reached. The instance is destroyed at the end.
  static func run(
    _ run: ConformanceRun, catalogue: [ActionSpec],
    visit: (Visit) throws(CheckFailure) -> Void = { _ in }
  ) throws(CheckFailure) -> [Step] {
    let instance = try run.startedInstance()
    defer { instance.destroy() }
    var steps: [Step] = []

    func settleAndRecord(_ input: String, status: fh_status) throws(CheckFailure) {
      try visit(Visit(label: input, settled: false, instance: instance))
      try run.settle(instance, after: input) { action throws(CheckFailure) in
        try visit(
          Visit(
            label: "\(ConformanceText.quote(action, limit: 60)) emitted after \(input)", settled: false,
            instance: instance))
      }
      try visit(Visit(label: input, settled: true, instance: instance))
      steps.append(Step(input: input, status: status, state: try state(of: instance, after: input)))
    }

    try settleAndRecord("created", status: fh_status(FH_OK))
    for action in catalogue {
      for candidate in ActionSamples.candidates(for: action) {
        let result = instance.dispatch(candidate)
        guard result.isOK else {
          steps.append(Step(input: candidate, status: result.status, state: try state(of: instance, after: candidate)))
          continue
        }
        try settleAndRecord(candidate, status: result.status)
        break
      }
    }
    return steps
  }

  static func state(of instance: ConformanceInstance, after label: String) throws(CheckFailure) -> [UInt8] {
    let snapshot = instance.snapshot()
    guard snapshot.isOK else { throw CheckFailure("snapshot after \(label) failed: \(snapshot.described)") }
    return snapshot.output
  }
}
