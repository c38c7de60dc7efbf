/// What `Sandbox.apply` put in place; `off` says what is not and why.
public struct SandboxReport: Sendable, Equatable {
  /// The kernel's Landlock ABI version; 0 when it has none.
  public var landlockABI: Int
  /// The process can gain no privilege (no set-user-id program, no file capability).
  public var noNewPrivileges: Bool
  /// Files and TCP ports are confined to the policy's.
  public var landlock: Bool
  /// The seccomp filter stops exec, fork, ptrace, mount and the like.
  public var seccomp: Bool
  /// The memory, descriptor and core-file limits are set.
  public var limits: Bool
  /// Refusals are reported to the notice closure.
  public var notices: Bool
  /// One line naming what is off and why; nil when everything is applied.
  public var off: String?

}
