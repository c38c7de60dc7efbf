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
    }
  }

  /// Whether the checks after this one need it to pass: they cannot open the plugin otherwise.
  public var isPrerequisite: Bool { self == .loads || self == .entry || self == .descriptor }
}
