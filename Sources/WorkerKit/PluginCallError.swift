import FeatureABI

#if canImport(Glibc)
  import Glibc
#endif

/// A call on an instance that failed: the plugin's status and its own message, or, for an
/// instance in another process, how that process was lost.
public struct PluginCallError: Error, Sendable, Equatable, CustomStringConvertible {
  public let call: String
  public let status: fh_status
  public let message: String
  /// Set when the instance is gone with its process (it crashed, exited or stopped answering):
  /// the call's outcome is unknown and the instance takes no more calls.
  public let loss: InstanceLoss?
  /// For a loss: whether this call caused it, as far as the host can tell.
  public let attribution: LossAttribution

  public init(
    call: String, status: fh_status, message: String, loss: InstanceLoss? = nil,
    attribution: LossAttribution = .thisCall
  ) {
    self.call = call
    self.status = status
    self.message = message
    self.loss = loss
    self.attribution = attribution
  }

  /// The same error, attributed otherwise.
  public func attributed(_ attribution: LossAttribution) -> PluginCallError {
    PluginCallError(call: call, status: status, message: message, loss: loss, attribution: attribution)
  }

  public var description: String { message.isEmpty ? "\(call) failed with status \(status)" : message }

  /// True when the call was out of lifecycle order (or the instance is gone).
  public var isLifecycle: Bool { status == fh_status(FH_ERR_LIFECYCLE) }

  /// True when the plugin refused bad input (action, state or config) rather than failing itself.
  public var isBadInput: Bool {
    status == fh_status(FH_ERR_BAD_ACTION) || status == fh_status(FH_ERR_BAD_STATE)
      || status == fh_status(FH_ERR_BAD_CONFIG)
  }
}

/// Whether a call that met a lost instance caused the loss: what decides if the action it
/// carried is blamed and dropped, or sent again to the instance that replaces the lost one.
public enum LossAttribution: Sendable, Equatable {
  /// The instance was lost while it ran this call (or it is not in another process).
  case thisCall
  /// The instance was already gone when the call was sent: the call never reached it.
  case notThisCall
  /// The call was sent in a run with others and the instance was lost before answering them:
  /// any of the unanswered calls may have caused it.
  case unknown
}

/// How an instance living in another process was lost.
public enum InstanceLoss: Sendable, Equatable, CustomStringConvertible {
  /// The process was ended by this signal (a crash: 11 is a segmentation fault, 6 an abort).
  case signalled(Int32)
  /// The process exited, with this status, while it had an instance to serve.
  case exited(Int32)
  /// `call` did not answer within `seconds`; the process was killed.
  case unresponsive(call: String, seconds: Double)
  /// The sandbox stopped the process for making `syscall`, which a plugin is not allowed.
  case stoppedBySandbox(syscall: String)
  /// The process died while its memory was at its limit of `limit` bytes.
  case outOfMemory(limit: UInt64)
  /// The process wrote what the host cannot have sent or it cannot answer into the memory they
  /// share (`what`); the host killed it.
  case brokeChannel(String)

  public var description: String {
    switch self {
    case .signalled(let signal):
      let name = strsignal(signal).map { String(cString: $0) } ?? "unknown signal"
      return "crashed (signal \(signal), \(name))"
    case .exited(let status):
      return "exited with status \(status)"
    case .unresponsive(let call, let seconds):
      return "did not answer \(call) within \(seconds.formatted()) s"
    case .stoppedBySandbox(let syscall):
      return "was stopped by the sandbox: \(syscall) is not allowed"
    case .outOfMemory(let limit):
      return "ran out of memory (limit \(MemorySize.text(limit)))"
    case .brokeChannel(let what):
      return "broke the channel to the host (\(what)) and was stopped"
    }
  }
}

extension Double {
  /// `10` for 10.0, `0.5` for 0.5: seconds as a person writes them.
  fileprivate func formatted() -> String {
    self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
  }
}
