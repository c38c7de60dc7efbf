import FeatureJSON
import Foundation

extension ConformanceSuite {
  /// `manifest`: the loader's rules (`DescriptorRules.manifest`): what `list` and `run` load
  /// passes, what they refuse fails, with the same reason.
  static func checkManifest(_ subject: ConformanceSubject) throws(CheckFailure) {
    do throws(DescriptorRules.Problem) {
      _ = try DescriptorRules.manifest(subject.manifestJSON)
    } catch {
      throw CheckFailure(error.why)
    }
  }

  /// `catalogue`: each action is tried with its samples right after `created`; one refused
  /// there is tried again after each other action. Every action the plugin emits meanwhile
  /// must be accepted too.
  static func checkCatalogue(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    var accepted: [String] = []  // the candidate each action was first accepted with
    var refused: [ActionSpec] = []
    var lastRefusal: [String: String] = [:]
    for action in catalogue {
      run.progress("'\(action.type)' after created")
      let instance = try run.startedInstance()
      defer { instance.destroy() }
      try settleAcceptingEmits(instance, after: "created", run: run)
      switch try firstAccepted(action, on: instance, run: run) {
      case .success(let candidate): accepted.append(candidate)
      case .failure(let why):
        refused.append(action)
        lastRefusal[action.type] = why.why
      }
    }
    for action in refused {
      var found = false
      for other in accepted where !found {
        run.progress("'\(action.type)' after \(other)")
        let instance = try run.startedInstance()
        defer { instance.destroy() }
        try settleAcceptingEmits(instance, after: "created", run: run)
        guard instance.dispatch(other).isOK else { continue }
        try settleAcceptingEmits(instance, after: other, run: run)
        if case .success = try firstAccepted(action, on: instance, run: run) { found = true }
      }
      guard found else {
        let last = lastRefusal[action.type] ?? ""
        throw CheckFailure(
          "action '\(action.type)' was refused with every sample, after created and after every other action; "
            + "last: \(last); if the feature needs a config for it (a list to pick from, an endpoint), "
            + "give one as 'host run' would, with --config")
      }
    }
  }

  /// Settles `instance`; an emitted action the plugin then refused fails the check.
  private static func settleAcceptingEmits(
    _ instance: ConformanceInstance, after label: String, run: ConformanceRun
  ) throws(CheckFailure) {
    try run.settle(instance, after: label)
    if let refused = instance.refusedEmits.first {
      throw CheckFailure(
        "the plugin emitted \(ConformanceText.quote(refused.action)) after \(label) and then refused it: "
          + refused.result.described)
    }
  }

  /// The first candidate of `action` the instance accepts (then settled), or the last refusal.
  private static func firstAccepted(
    _ action: ActionSpec, on instance: ConformanceInstance, run: ConformanceRun
  ) throws(CheckFailure) -> Result<String, CheckFailure> {
    var last = CheckFailure("it has no samples")
    for candidate in ActionSamples.candidates(for: action) {
      let result = instance.dispatch(candidate)
      if result.isOK {
        try settleAcceptingEmits(instance, after: candidate, run: run)
        return .success(candidate)
      }
      last = CheckFailure("\(candidate) -> \(result.described)")
    }
    return .failure(last)
  }
}
