/// Something a session runtime tells its front end that is not an error: a warning, a note, a
/// line of the navigation log.
public enum RuntimeNotice: Sendable, Equatable, CustomStringConvertible {
  /// Actions queued when a feature stopped, never applied.
  case unapplied(feature: String, count: Int)
  /// Actions a feature emitted after it stopped (a plugin breaking the ABI), ignored.
  case late(feature: String, count: Int)
  /// Actions sent to a feature after it was closed for crashing too often.
  case afterClosing(feature: String, count: Int)
  /// Emits of a feature that were not actions, each refused and reported when it came.
  case refusedEmits(feature: String, count: Int)
  /// A feature's journal cannot be written: it goes on, its actions kept in memory and the write
  /// retried at each change.
  case journalUnsaved(feature: String)
  /// A feature's journal could be written again: nothing recorded meanwhile was lost.
  case journalSaved(feature: String)
  /// A feature's journal failed; it goes on unrecorded.
  case journalDropped(feature: String)
  /// The navigation journal cannot be written: navigation goes on, its steps kept in memory and
  /// the write retried at each step.
  case navigationJournalUnsaved
  /// The navigation journal could be written again: no step was lost.
  case navigationJournalSaved
  /// The session ended while the navigation journal could not be written.
  case navigationJournalUnsavedAtStop
  /// A journal's last line was torn by a crash and is cut; `detail` says where.
  case tornJournal(detail: String)
  /// A journal line's JSON did not parse: the state before it (after `restoredSeq`) was restored,
  /// and the line with those after it moved to `setAside`.
  case damagedJournal(JournalDamage, setAside: String, restoredSeq: Int)
  /// The navigation journal's last line was torn by a crash and is ignored.
  case tornNavigation(path: String)
  /// A restored session keeps the config it was created with, not the one given.
  case configKept(session: String, config: String)
  /// A plugin logged a warning or an error.
  case pluginLog(feature: String, message: String)
  /// The sandbox refused a feature something it did not declare (said once per feature and kind).
  case sandboxRefused(feature: String, refusal: SandboxRefusal)
  /// The runaway guard paused a feature while the run was settling.
  case paused(feature: String)
  /// A feature's feedback loop was paused (Ctrl-C during a regulation) and waits to be resumed.
  case feedbackPaused(feature: String)
  /// A named session was restored: its first feature and the seq it is at.
  case sessionRestored(session: String, feature: String, sequence: Int)
  /// A named session was saved on leaving (said at a terminal).
  case sessionSaved(session: String, sequence: Int)
  /// Ctrl-C ended a wait for `feature` to settle; `effects` were still running.
  case waitInterrupted(feature: String, effects: Int)
  /// A line of the navigation log (`will navigate`, `did navigate`).
  case navigation(String)
  /// A step the navigation ignored, and why.
  case stepIgnored(String)
  /// A feature's lost instance was replaced by a new one, restored to the state after `sequence`.
  case restarted(feature: String, sequence: Int)
  /// A feature was reloaded from a new build, its state kept.
  case reloaded(ReloadReport)
  /// A watched plugin file changed, but its bytes are the build already running: nothing reloads.
  case buildUnchanged(feature: String, version: String)

  /// How a front end shows it.
  public enum Level: Sendable, Equatable {
    case note, warning, log
  }

  public var level: Level {
    switch self {
    case .unapplied, .paused, .feedbackPaused, .sessionRestored, .sessionSaved, .waitInterrupted,
      .stepIgnored, .restarted, .reloaded, .buildUnchanged, .journalSaved, .navigationJournalSaved:
      .note
    case .late, .afterClosing, .refusedEmits, .journalUnsaved, .journalDropped, .navigationJournalUnsaved,
      .navigationJournalUnsavedAtStop, .tornJournal,
      .damagedJournal, .tornNavigation, .configKept, .pluginLog, .sandboxRefused:
      .warning
    case .navigation: .log
    }
  }

  public var description: String {
    switch self {
    case .unapplied(let feature, let count):
      "\(count) action(s) still queued when \(feature) stopped were not applied"
    case .late(let feature, let count): "\(feature) emitted \(count) action(s) after it was stopped; they were ignored"
    case .afterClosing(let feature, let count):
      "\(count) action(s) sent after \(feature) was closed were not applied"
    case .refusedEmits(let feature, let count):
      "\(feature) emitted \(count) line(s) that were not actions; each was refused, none applied or journaled"
    case .journalUnsaved(let feature):
      "\(feature) goes on unsaved: its actions are kept in memory and written as soon as the disk takes them; "
        + "the view says 'not saved' until then"
    case .journalSaved(let feature): "\(feature)'s journal is saved again: nothing was lost"
    case .journalDropped(let feature):
      "\(feature) goes on without a journal: what happens from now on is not recorded"
    case .navigationJournalUnsaved:
      "navigation goes on unsaved: its steps are kept in memory and written as soon as the disk takes them"
    case .navigationJournalSaved: "the navigation journal is saved again: no step was lost"
    case .navigationJournalUnsavedAtStop:
      "the session stopped while its navigation journal could not be written: a restore shows the last "
        + "navigation saved before"
    case .tornJournal(let detail): detail
    case .damagedJournal(let damage, let aside, let seq):
      "journal '\(damage.path)' line \(damage.line) \(damage.problem): restored the state before it (seq \(seq)); "
        + "that line and the ones after it were moved to '\(aside)'"
    case .tornNavigation(let path): "navigation journal '\(path)': the last line was torn by a crash and is ignored"
    case .configKept(let session, let config):
      "session '\(session)' keeps the config it was created with, \(config); the config given is ignored"
    case .pluginLog(let feature, let message): "\(feature): \(message)"
    case .sandboxRefused(let feature, let refusal): refusal.sentence(feature: feature)
    case .paused(let feature): "\(feature) is paused by the runaway guard; resume it to go on"
    case .feedbackPaused(let feature): "\(feature) paused: its feedback loop waits; resume it to go on"
    case .sessionRestored(let session, let feature, let sequence):
      "restored session \(session) (\(feature)) at seq \(sequence)"
    case .sessionSaved(let session, let sequence): "session \(session) saved at seq \(sequence)"
    case .waitInterrupted(let feature, let effects):
      "stopped waiting for \(feature)" + (effects > 0 ? "; \(effects) effect(s) still running" : "")
    case .navigation(let line), .stepIgnored(let line): line
    case .restarted(let feature, let sequence): "\(feature) restarted at seq \(sequence)"
    case .reloaded(let report):
      "\(report.feature) reloaded (\(report.from) -> \(report.to)), state kept"
        + (report.cancelledEffects > 0
          ? "; \(report.cancelledEffects) effect(s) in flight cancelled" : "")
    case .buildUnchanged(let feature, let version):
      "\(feature): the new file is the build already running (\(version)); nothing to reload"
    }
  }
}

/// Where a session runtime reports what answers no call: errors and notices from its features'
/// stores and from navigation. Called from any thread.
public protocol RuntimeReporter: AnyObject, Sendable {
  func report(_ error: HostError)
  func notice(_ notice: RuntimeNotice)
}
