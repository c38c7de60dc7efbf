import FeatureJSON
import Foundation

extension ConformanceSuite {
  /// `manifest`: UTF-8, the loader's rules (PluginManifest), and every text a person reads in
  /// `:help` present: description, action help, argument names and help.
  static func checkManifest(_ subject: ConformanceSubject) throws(CheckFailure) {
    let bytes = UnsafeRawBufferPointer(start: subject.manifestJSON, count: strlen(subject.manifestJSON)).map { $0 }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw CheckFailure("manifest_json is not valid UTF-8: \(ConformanceText.quote(bytes: bytes))")
    }
    let manifest: PluginManifest
    do {
      manifest = try PluginManifest(json: text)
    } catch {
      throw CheckFailure(error.message)
    }
    guard !manifest.description.isEmpty else {
      throw CheckFailure("manifest description is missing or empty; say in one line what the feature does")
    }
    for action in manifest.actions {
      guard !action.help.isEmpty else { throw CheckFailure("manifest action '\(action.type)' has no help text") }
      var names = Set<String>()
      for argument in action.arguments {
        guard argument.name != "type" else {
          throw CheckFailure("manifest action '\(action.type)' has an argument named 'type', the action's own tag")
        }
        guard names.insert(argument.name).inserted else {
          throw CheckFailure("manifest action '\(action.type)' lists the argument '\(argument.name)' twice")
        }
        guard !argument.help.isEmpty else {
          throw CheckFailure("manifest argument '\(argument.name)' of '\(action.type)' has no help text")
        }
      }
    }
  }

  /// `catalogue`: each action is tried with its samples right after `created`; one refused
  /// there is tried again after each other action. Every action the plugin emits meanwhile
  /// must be accepted too.
  static func checkCatalogue(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    var accepted: [String] = []  // the candidate each action was first accepted with
    var refused: [PluginManifest.Action] = []
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
            + "last: \(last)")
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
    _ action: PluginManifest.Action, on instance: ConformanceInstance, run: ConformanceRun
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
