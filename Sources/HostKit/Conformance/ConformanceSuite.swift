import FeatureABI

/// The conformance checks behind `host validate`: each one opens the plugin, exercises one rule
/// of feature_abi.h and returns a verdict whose reason names the offending value.
///
/// A check runs in the calling process and trusts nothing the plugin does, but it cannot survive
/// a plugin that crashes or hangs: `host validate` therefore runs each check in a child process
/// of its own, with a timeout. Calling `run` directly is for plugins known to behave (tests).
public enum ConformanceSuite {
  public struct Settings: Sendable {
    /// The config every instance is created with (a JSON object), as `host run --config` gives.
    public var config: String
    /// The seconds one check may take. Waits for effects inside a check end at 80% of it, so the
    /// check can say what it was waiting for before the validator's timeout kills it.
    public var timeout: Double
    /// The seconds `no-emit-after-stop` watches for callbacks after stop returned.
    public var observationWindow: Double

    public init(config: String = "{}", timeout: Double = 10, observationWindow: Double = 0.25) {
      self.config = config
      self.timeout = timeout
      self.observationWindow = observationWindow
    }
  }

  /// Runs `check` against the plugin file at `path`. `progress` hears each piece of work as it
  /// begins, so a crash can be placed.
  public static func run(
    _ check: ConformanceCheck, plugin path: String, settings: Settings = Settings(),
    progress: @escaping (String) -> Void = { _ in }
  ) -> ConformanceVerdict {
    do throws(CheckFailure) {
      let run = try ConformanceRun(check: check, path: path, settings: settings, progress: progress)
      guard let run else { return .pass }
      do throws(CheckFailure) {
        try perform(check, run)
      } catch {
        // Judged by the rules of the minor the plugin declares: a newer rule is advice.
        guard error.needs == nil && check.minor > run.subject.abiMinor else { throw error }
        return .note(newerRule(check, declared: run.subject.abiMinor, error.why))
      }
      return .pass
    } catch {
      // A check built on a manifest that failed is skipped, as one after a failed structural step.
      if let needs = error.needs { return .skip(needs: needs) }
      return .fail(error.why)
    }
  }

  /// The note for a plugin of ABI 1.`declared` that breaks `check`'s rule of a later minor.
  static func newerRule(_ check: ConformanceCheck, declared: UInt32, _ why: String) -> String {
    "\(why) (a rule of ABI \(FH_ABI_MAJOR).\(check.minor); this plugin declares "
      + "\(FH_ABI_MAJOR).\(declared), so it is not held to it)"
  }

  private static func perform(_ check: ConformanceCheck, _ run: ConformanceRun) throws(CheckFailure) {
    switch check {
    case .loads, .entry, .descriptor: break
    case .manifest: try checkManifest(run.subject)
    case .catalogue: try checkCatalogue(run)
    case .badActions: try checkBadActions(run)
    case .snapshotRoundTrip: try checkSnapshotRoundTrip(run)
    case .restoreRefusesBadState: try checkRestoreRefusesBadState(run)
    case .lifecycle: try checkLifecycle(run)
    case .noEmitAfterStop: try checkNoEmitAfterStop(run)
    case .deterministic: try checkDeterministic(run)
    case .render: try checkRender(run)
    case .nullArguments: try checkNullArguments(run)
    case .unknownSetting: try checkUnknownSetting(run)
    case .extraMembers: try checkExtraMembers(run)
    case .lifecycleAction: try checkLifecycleAction(run)
    case .refusedArguments: try checkRefusedArguments(run)
    case .deepNesting: try checkDeepNesting(run)
    case .effectAccounting: try checkEffectAccounting(run)
    case .callbackPhases: try checkCallbackPhases(run)
    case .lastError: try checkLastError(run)
    case .sandbox: try checkSandbox(run)
    }
  }
}
