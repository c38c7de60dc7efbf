/// Why the coordinator could not navigate or restore a recorded stack.
public enum NavigationFailure: EngineFailure, Equatable {
  /// A restored session shows a feature no plugin provides.
  case restoredFeatureMissing(id: String)
  /// A restored session's navigation journal holds no feature.
  case nothingRestored
  /// Focus moved to a feature the top frame does not show.
  case notShown(id: String, shown: [String])
  /// Back from the first feature.
  case nothingToGoBackTo
  /// The step lacks the field its rule takes the feature id from.
  case stepLacksField(target: String, step: String)
  /// The flow (or a command) names a feature no plugin provides.
  case unknownFeature(id: String, suggestion: String?, known: [String])

  public var description: String {
    switch self {
    case .restoredFeatureMissing(let id): "the session shows feature '\(id)', which is not among the plugins found"
    case .nothingRestored: "the session's navigation journal holds no feature"
    case .notShown(let id, _): "'\(id)' is not shown"
    case .nothingToGoBackTo: "already at the first feature; there is nothing to go back to"
    case .stepLacksField(let target, let step): "the step has no field for \(target) in \(step)"
    case .unknownFeature(let id, _, _): "unknown feature '\(id)'"
    }
  }

  public var advice: String? {
    switch self {
    case .restoredFeatureMissing: "add its folder to the plugin search path, or remove the session"
    case .nothingRestored, .stepLacksField: nil
    case .notShown(_, let shown): "shown now: \(shown.joined(separator: ", "))"
    case .nothingToGoBackTo: "leaving ends the run"
    case .unknownFeature(_, let suggestion, let known):
      "\(suggestion.map { "did you mean '\($0)'? " } ?? "")features found: \(known.joined(separator: ", "))"
    }
  }
}
