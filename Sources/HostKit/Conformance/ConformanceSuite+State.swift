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
    let restored = instance.restore(bytes: first)
    guard restored.isOK else {
      throw CheckFailure("restore refused the plugin's own snapshot \(quoted) after \(label): \(restored.described)")
    }
    let second = try CatalogueWalk.state(of: instance, after: "restore")
    guard second == first else {
      throw CheckFailure(
        "snapshot -> restore -> snapshot after \(label) gave \(quoted), then \(ConformanceText.quote(bytes: second))")
    }
    let fresh = try run.makeInstance()
    defer { fresh.destroy() }
    let freshRestored = fresh.restore(bytes: first)
    guard freshRestored.isOK else {
      throw CheckFailure("a fresh instance refused the snapshot \(quoted): \(freshRestored.described)")
    }
    let third = try CatalogueWalk.state(of: fresh, after: "restore")
    guard third == first else {
      throw CheckFailure(
        "a fresh instance restored from \(quoted) snapshots \(ConformanceText.quote(bytes: third))")
    }
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
}
