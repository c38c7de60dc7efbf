import FeatureABI
import Foundation

extension ConformanceSuite {
  /// A call the lifecycle check makes.
  enum LifecycleCall: String {
    case start, created, stop, dispatch, reduce, restore, snapshot, render
  }

  /// One row of the lifecycle table: on a fresh instance, make `setup` (each must succeed), then
  /// `call`, which must answer `expected`.
  struct LifecycleCase {
    let id: String
    let setup: [LifecycleCall]
    let call: LifecycleCall
    let expected: fh_status
  }

  /// The lifecycle of feature_abi.h as a table: calls out of order are refused with
  /// FH_ERR_LIFECYCLE; snapshot and render work before start and after stop.
  static let lifecycleCases: [LifecycleCase] = {
    let refused = fh_status(FH_ERR_LIFECYCLE)
    let allowed = fh_status(FH_OK)
    let stopped: [LifecycleCall] = [.start, .created, .stop]
    return [
      LifecycleCase(id: "dispatch-before-start", setup: [], call: .dispatch, expected: refused),
      LifecycleCase(id: "start-twice", setup: [.start], call: .start, expected: refused),
      LifecycleCase(id: "stop-before-start", setup: [], call: .stop, expected: refused),
      LifecycleCase(id: "stop-twice", setup: stopped, call: .stop, expected: refused),
      LifecycleCase(id: "start-after-stop", setup: stopped, call: .start, expected: refused),
      LifecycleCase(id: "dispatch-after-stop", setup: stopped, call: .dispatch, expected: refused),
      LifecycleCase(id: "reduce-after-stop", setup: stopped, call: .reduce, expected: refused),
      LifecycleCase(id: "restore-after-stop", setup: stopped, call: .restore, expected: refused),
      LifecycleCase(id: "snapshot-before-start", setup: [], call: .snapshot, expected: allowed),
      LifecycleCase(id: "render-before-start", setup: [], call: .render, expected: allowed),
      LifecycleCase(id: "snapshot-after-stop", setup: stopped, call: .snapshot, expected: allowed),
      LifecycleCase(id: "render-after-stop", setup: stopped, call: .render, expected: allowed),
    ]
  }()

  /// `lifecycle`: every row of `lifecycleCases`, each on a fresh instance. A refusal needs a
  /// message too.
  static func checkLifecycle(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    // A valid action, so a plugin cannot pass by refusing it for being unknown.
    let action = catalogue.first.flatMap { ActionSamples.candidates(for: $0).first } ?? #"{"type":"created"}"#
    for row in lifecycleCases {
      run.progress("lifecycle '\(row.id)'")
      let instance = try run.makeInstance()
      defer { instance.destroy() }
      let state = try CatalogueWalk.state(of: instance, after: "create")
      func perform(_ call: LifecycleCall) -> CallResult {
        switch call {
        case .start: instance.start()
        case .created: instance.dispatch(#"{"type":"created"}"#)
        case .stop: instance.stop()
        case .dispatch: instance.dispatch(action)
        case .reduce: instance.reduce(bytes: Array(action.utf8))
        case .restore: instance.restore(bytes: state)
        case .snapshot: instance.snapshot()
        case .render: instance.render()
        }
      }
      for call in row.setup {
        let result = perform(call)
        guard result.isOK else {
          throw CheckFailure("'\(row.id)': \(call.rawValue) failed where it is allowed: \(result.described)")
        }
      }
      let result = perform(row.call)
      let what = row.call == .dispatch || row.call == .reduce ? "\(row.call.rawValue) \(action)" : row.call.rawValue
      guard result.status == row.expected else {
        throw CheckFailure(
          "'\(row.id)': \(what) returned \(result.described), want \(CallResult.statusName(row.expected))")
      }
      guard result.isOK || !result.message.trimmingWhitespace().isEmpty else {
        throw CheckFailure("'\(row.id)': \(what) was refused without a message: last_error() is empty")
      }
    }
  }

  /// `no-emit-after-stop`: stop twice with effects in flight, once right after `created` and
  /// once after sending every catalogued action; then no callback may reach the host.
  ///
  /// Absence can only be observed over time, so after stop returns the check watches for a short
  /// bounded window (`observationWindow`). It waits on the recorder's own signal, which wakes it
  /// at the first late callback: a breaking plugin fails at once, only a good one costs the window.
  static func checkNoEmitAfterStop(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    let inputs = catalogue.compactMap { ActionSamples.candidates(for: $0).first }
    for (scenario, sent) in [("right after created", [String]()), ("after every catalogued action", inputs)] {
      let instance = try run.startedInstance()
      defer { instance.destroy() }
      for input in sent {
        run.progress("dispatch \(input)")
        _ = instance.dispatch(input)
      }
      run.progress("stop \(scenario)")
      let stopped = instance.stop()
      guard stopped.isOK else { throw CheckFailure("stop \(scenario) failed: \(stopped.described)") }
      run.progress("watching for callbacks after stop \(scenario)")
      let window = Date(timeIntervalSinceNow: run.settings.observationWindow)
      if let first = instance.recorder.breachesAfterStop(waitingUntil: window).first {
        throw CheckFailure(
          "after stop returned (\(scenario)) the plugin called \(first); stop must cancel or join every effect "
            + "before it returns")
      }
    }
  }
}
