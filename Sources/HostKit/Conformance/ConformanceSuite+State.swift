import FeatureABI
import FeatureJSON

extension ConformanceSuite {
  /// `snapshot-round-trip`: at every settled state of a catalogue walk, the snapshot is a JSON
  /// object; restoring it and snapshotting again gives the same bytes, in the same instance and
  /// in a fresh one; and the fresh one then accepts `restored`.
  static func checkSnapshotRoundTrip(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    _ = try CatalogueWalk.run(run, catalogue: catalogue) { visit throws(CheckFailure) in
      guard visit.settled else { return }
      run.progress("round trip after \(visit.label)")
      try roundTrip(visit.instance, after: visit.label, run: run)
    }
  }

  private static func roundTrip(
    _ instance: ConformanceInstance, after label: String, run: ConformanceRun
  ) throws(CheckFailure) {
    let first = try CatalogueWalk.state(of: instance, after: label)
    let quoted = ConformanceText.quote(bytes: first)
    guard let text = String(validating: first, as: UTF8.self), (try? JSONValue.parse(text))?.objectValue != nil else {
      throw CheckFailure("the snapshot after \(label) is not a UTF-8 JSON object: \(quoted)")
    }
    try restoreGivesBack(
      first, in: instance, refused: { "restore refused the plugin's own snapshot \(quoted) after \(label): \($0)" },
      differs: { "snapshot -> restore -> snapshot after \(label) gave \(quoted), then \($0)" })
    let fresh = try run.makeInstance()
    defer { fresh.destroy() }
    try restoreGivesBack(
      first, in: fresh, refused: { "a fresh instance refused the snapshot \(quoted): \($0)" },
      differs: { "a fresh instance restored from \(quoted) snapshots \($0)" })
    let started = fresh.start()
    guard started.isOK else { throw CheckFailure("start after restore failed: \(started.described)") }
    let lifecycle = fresh.dispatch(#"{"type":"restored"}"#)
    guard lifecycle.isOK else {
      throw CheckFailure(#"{"type":"restored"} was refused after restoring "# + "\(quoted): \(lifecycle.described)")
    }
  }

  /// `deterministic`: the same catalogue walk on two fresh instances gives the same statuses and
  /// the same states, step by step.
  static func checkDeterministic(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    run.progress("first walk")
    let first = try CatalogueWalk.run(run, catalogue: catalogue)
    run.progress("second walk")
    let second = try CatalogueWalk.run(run, catalogue: catalogue)
    for (index, (one, two)) in zip(first, second).enumerated() where one != two {
      let step = "step \(index + 1) (\(one.input))"
      guard one.input == two.input, one.status == two.status else {
        throw CheckFailure(
          "at \(step) the first instance answered \(CallResult.statusName(one.status)) and the second "
            + "\(CallResult.statusName(two.status)) to \(two.input)")
      }
      throw CheckFailure(
        "after \(step) the first instance has \(ConformanceText.quote(bytes: one.state)) and the second "
          + "\(ConformanceText.quote(bytes: two.state))")
    }
    guard first.count == second.count else {
      throw CheckFailure("the first walk took \(first.count) steps and the second \(second.count)")
    }
  }

  /// Restores `state` into `instance`, then checks its snapshot is `state` again. `refused` words
  /// a refusal (given the call's result), `differs` a different snapshot (given it, quoted).
  private static func restoreGivesBack(
    _ state: [UInt8], in instance: ConformanceInstance, refused: (String) -> String, differs: (String) -> String
  ) throws(CheckFailure) {
    let restored = instance.restore(bytes: state)
    guard restored.isOK else { throw CheckFailure(refused(restored.described)) }
    let again = try CatalogueWalk.state(of: instance, after: "restore")
    guard again == state else { throw CheckFailure(differs(ConformanceText.quote(bytes: again))) }
  }
}
