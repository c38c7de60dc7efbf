/// One rule of the plugin contract (feature_abi.h) that `host validate` checks.
///
/// The order is the order of the report: the first three open the plugin step by step, and while
/// one of them fails the others cannot run.
public enum ConformanceCheck: String, CaseIterable, Sendable {
  case loads
  case entry
  case descriptor
  case manifest
  case catalogue
  case badActions = "bad-actions"
  case snapshotRoundTrip = "snapshot-round-trip"
  case restoreRefusesBadState = "restore-refuses-bad-state"
  case lifecycle
  case noEmitAfterStop = "no-emit-after-stop"
  case deterministic
  case render
  case nullArguments = "null-arguments"
  case unknownSetting = "unknown-setting"
  case extraMembers = "extra-members"
  case lifecycleAction = "lifecycle-action"
  case refusedArguments = "refused-arguments"
  case deepNesting = "deep-nesting"
  case effectAccounting = "effect-accounting"
  case callbackPhases = "callback-phases"
  case lastError = "last-error"
  case sandbox

  /// The name printed in the report and accepted by `--check`.
  public var name: String { rawValue }

  /// What the check asks of the plugin, in one line.
  public var summary: String {
    switch self {
    case .loads: "the file opens with dlopen(RTLD_NOW | RTLD_LOCAL)"
    case .entry: "fh_plugin_entry_v1 is exported and returns the same non-NULL descriptor each call"
    case .descriptor: "struct_size, abi_major, abi_minor and reserved are sane; no required function is NULL"
    case .manifest: "the manifest is valid JSON and UTF-8, every name and help text non-empty"
    case .catalogue: "every catalogued action is accepted in some state, and so is every action the plugin emits"
    case .badActions: "empty, malformed, oversized (10 MB) and random actions get FH_ERR_BAD_ACTION and a message"
    case .snapshotRoundTrip: "snapshot -> restore -> snapshot gives identical bytes, in the same and a fresh instance"
    case .restoreRefusesBadState: "restore refuses invalid states with FH_ERR_BAD_STATE and keeps the state"
    case .lifecycle: "calls out of lifecycle order get FH_ERR_LIFECYCLE (dispatch before start, start twice, ...)"
    case .noEmitAfterStop: "no callback reaches the host after stop returns, even with effects in flight"
    case .deterministic: "the same actions on two fresh instances give the same states"
    case .render: "render gives UTF-8 text without control sequences for every state reached"
    case .nullArguments: "a NULL config, action or state is refused with FH_ERR_BAD_CONFIG/ACTION/STATE, not a crash"
    case .unknownSetting: "create refuses a config naming a setting the feature does not read, naming it"
    case .extraMembers: "an action or a state with a member the feature does not know is refused, state unchanged"
    case .lifecycleAction: "dispatch refuses actions before the lifecycle action and a second one (FH_ERR_LIFECYCLE)"
    case .refusedArguments: "an argument value refused with FH_ERR_BAD_ACTION leaves the state exactly as it was"
    case .deepNesting: "a deeply nested value inside a state, an action or a config is refused, not a crash"
    case .effectAccounting:
      "an emit outside dispatch comes from an effect in flight; never more effect_ended than effect_began"
    case .callbackPhases: "nothing but log is called back during create and start"
    case .lastError: "last_error is \"\" after success, and calling it leaves the last snapshot or view intact"
    case .sandbox:
      "loading it and walking its catalogue touch no file or port its manifest's needs do not declare (sandboxed)"
    }
  }

  /// The ABI minor whose rule this check judges (feature_abi.h's ChangeLog): a plugin declaring
  /// an older minor is not held to it, and breaking it earns a note instead of a failure.
  public var minor: UInt32 {
    switch self {
    case .nullArguments, .unknownSetting, .extraMembers, .lifecycleAction, .refusedArguments, .effectAccounting,
      .callbackPhases, .lastError:
      1
    default: 0
    }
  }

  /// Whether the checks after this one need it to pass: they cannot open the plugin otherwise.
  public var isPrerequisite: Bool { self == .loads || self == .entry || self == .descriptor }

  /// The last structural check this one needs, named in a `skip` line; nil for `loads`.
  public var needs: ConformanceCheck? {
    switch self {
    case .loads: nil
    case .entry: .loads
    case .descriptor: .entry
    default: .descriptor
    }
  }
}
