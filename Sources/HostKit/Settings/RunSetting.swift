/// A setting of a run, declared once: the option that sets it, its default, its bounds and its
/// help. The command line's options, the engine's defaults and the help text all read it, so the
/// default is written in one place.
public struct RunSetting<Value: Sendable>: Sendable {
  public enum Bounds: Sendable {
    /// A whole number, `minimum` or more.
    case count(minimum: Int)
    /// A number of seconds: above `minimum`, or from it when `allowsMinimum`; at most `maximum`.
    case seconds(minimum: Double, allowsMinimum: Bool, maximum: Double?)
    /// A size in bytes (`MemorySize`), `minimum` or more.
    case size(minimum: UInt64)
  }

  /// `--max-feedback-steps`.
  public let option: String
  /// How help shows its value: `N`, `SECONDS`.
  public let valueName: String
  public let defaultValue: Value
  public let bounds: Bounds
  /// One sentence or so, with the default (and bounds) spelled from the declaration.
  public let help: String
}

extension RunSetting where Value == Int {
  /// A count with `help(default)` written around its default.
  init(_ option: String, valueName: String = "N", default value: Int, minimum: Int, help: (Int) -> String) {
    self.init(
      option: option, valueName: valueName, defaultValue: value, bounds: .count(minimum: minimum), help: help(value))
  }
}

extension RunSetting where Value == Duration {
  /// A number of seconds with `help(default, maximum)` written around its default and maximum.
  init(
    _ option: String, default seconds: Int, minimum: Double, allowsMinimum: Bool, maximum: Double,
    help: (Int, Int) -> String
  ) {
    self.init(
      option: option, valueName: "SECONDS", defaultValue: .seconds(seconds),
      bounds: .seconds(minimum: minimum, allowsMinimum: allowsMinimum, maximum: maximum),
      help: help(seconds, Int(maximum)))
  }

  /// The default in seconds.
  public var defaultSeconds: Double { defaultValue.seconds }
}

extension RunSetting where Value == UInt64 {
  /// A size in bytes with `help(default text, minimum text)` written around its default.
  init(_ option: String, default bytes: UInt64, minimum: UInt64, help: (String, String) -> String) {
    self.init(
      option: option, valueName: "SIZE", defaultValue: bytes, bounds: .size(minimum: minimum),
      help: help(MemorySize.text(bytes), MemorySize.text(minimum)))
  }
}

/// Every setting of a run that has a default: what `host run` (and the commands that share its
/// options), the engine and the test stores start from.
public enum RunSettingCatalogue {
  /// The longest any wait may be set to, in seconds: a day. Larger values overflow the clocks
  /// the waits use, so every seconds option stops here.
  public static let longestWait: Double = 86_400

  public static let maxFeedbackSteps = RunSetting<Int>("--max-feedback-steps", default: 10_000, minimum: 1) {
    "feedback actions in a row before the runaway guard pauses the feature (default \($0))"
  }

  public static let maxLineBytes = RunSetting<Int>("--max-line-bytes", default: 1 << 20, minimum: 1) {
    "the longest input line taken, in bytes (default \($0): \($0 >> 20) MiB); a longer one is skipped with an error"
  }

  public static let settleTimeout = RunSetting<Duration>(
    "--settle-timeout", default: 10, minimum: 0, allowsMinimum: true, maximum: longestWait
  ) { "how long to wait for effects at end of input or :settle (default \($0), at most \($1): a day)" }

  public static let callTimeout = RunSetting<Duration>(
    "--call-timeout", default: 10, minimum: 0, allowsMinimum: true, maximum: longestWait
  ) {
    "how long one call into an isolated feature may take before its worker is killed (default \($0), at most "
      + "\($1); 0 waits forever)"
  }

  public static let maxMemory = RunSetting<UInt64>(
    "--max-memory", default: SandboxSettings.defaultMaxMemory, minimum: 64 << 20
  ) {
    "the most memory each isolated feature's worker may hold, e.g. 512M or 1G (default \($0): at most 2 GiB, half "
      + "the machine's memory where that is less; at least \($1)); a worker that runs out is restarted from its journal"
  }

  public static let scanTimeout = RunSetting<Duration>(
    "--scan-timeout", default: 5, minimum: 0, allowsMinimum: false, maximum: 3600
  ) {
    "how long a new or changed plugin file may take to be inspected (in a child process) before it is rejected "
      + "(default \($0), at most \($1); time spent waiting for a CPU on a busy machine does not count, up to "
      + "\(ChildProcess.busyMachineAllowance) times this in all)"
  }
}
