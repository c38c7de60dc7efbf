/// A run's settings, as one value: the command line writes it (`host run`, the main flow,
/// `host dev`), the session runtime reads it, and each feature's store is made with its `store`
/// options. Defaults come from `RunSettingCatalogue`.
public struct RunSettings: Sendable {
  /// How each feature's store runs: the runaway guard's bound (`--max-feedback-steps`) and what
  /// views are drawn with. The runtime decides whether views are drawn (a live terminal).
  public var store = Store.Options()
  /// How long settling and the waits around navigation may take (`--settle-timeout`).
  public var settleTimeout = RunSettingCatalogue.settleTimeout.defaultValue
  /// The longest input line taken (`--max-line-bytes`); a longer one is skipped with an error.
  public var maxLineBytes = RunSettingCatalogue.maxLineBytes.defaultValue
  /// The named session the first feature journals into and restores from; without one every
  /// feature journals into a temporary file that time travel uses and that `close` removes.
  public var session: String?
  /// Where named sessions live; nil: `SessionDirectory.default()`.
  public var sessions: SessionDirectory?
  /// Where the temporary folder is made; nil: the system's temporary folder.
  public var temporaryRoot: String?
  /// Whether the creator gave the first feature a config: a restored session that keeps
  /// another one says so.
  public var configGiven = false
  /// `--config ID.KEY=VALUE`: a JSON object per feature id, given to it wherever it is opened.
  public var featureConfigs: [String: String] = [:]
  /// Reports `will navigate` / `did navigate` lines.
  public var logsNavigation = false
  /// Where each feature's instance runs (`--isolation`, `--call-timeout`).
  public var instances: InstanceFactory = .inProcess
  /// How features are reloaded from new builds (`:reload`, `--watch`).
  public var reload = ReloadSettings()
  /// Called (on another thread) once the navigation a closed feature started is done, so a
  /// front end blocked reading input can look at `hasEndedByClosing` at once.
  public var featureClosed: (@Sendable () -> Void)?

  public init() {}
}
