/// Where an action came from; recorded with every applied action.
public enum ActionSource: String, Sendable, Equatable {
  case user, effect, feedback, lifecycle, navigation
}

/// What a store reports to its observer, on the store's thread, in order.
public enum StoreEvent: Sendable, Equatable {
  /// The plugin applied an action. `sequence` counts applied actions from 1.
  case applied(sequence: Int, action: String, source: ActionSource, changed: Bool)
  /// The plugin refused an action; the state is unchanged. `inputLine`: the line of input it was
  /// read from, when its sender gave one (`Store.send(_:source:inputLine:)`).
  case rejected(action: String, source: ActionSource, error: PluginCallError, inputLine: Int? = nil)
  /// The plugin emitted something that is not an action (`StoreFailure.emitRefused`): refused at
  /// the emit, counted (`Store.refusedEmits`), never applied or journaled.
  case emitRefused(HostError)
  /// The view changed (distinct until changed); `text` is the whole new view.
  case viewChanged(String)
  /// The feature emitted a navigation step (`fh.navigation/1`), in order with its actions.
  case step(String)
  /// The runaway guard paused the store; `message` says why.
  case paused(HostError)
  /// The journal failed and was dropped (or could not save what it held at stop); the store goes
  /// on without it.
  case journalFailed(HostError)
  /// A commit failed: what was recorded since waits in memory, the view is marked unsaved
  /// (`Store.unsavedMark`), and every later commit retries. Reported once until `journalSaved`.
  case journalUnsaved(HostError)
  /// A commit succeeded after `journalUnsaved`: everything recorded meanwhile is on disk.
  case journalSaved
  /// The plugin logged a line.
  case log(level: LogLevel, message: String)
  /// The sandbox refused the plugin something it did not declare.
  case refusedBySandbox(SandboxRefusal)
  /// The instance was lost (its process crashed, exited or stopped answering) during `call`,
  /// applying `action` (nil: none), or between calls (`call` empty). That action was not
  /// applied; its effects count as ended.
  case instanceLost(InstanceLoss, call: String, action: String?)
  /// A new instance, restored to the state after `sequence`, took over; `restored` follows.
  case instanceRestarted(sequence: Int)
  /// The feature is closed after losing its instance (see `StoreFailure.crashedTooOften` and
  /// `.notRestarted`): the store has stopped by itself; its owner still calls `stop`.
  case closed(HostError)
}

/// How a wait for the store to settle ended.
public enum SettleResult: Sendable, Equatable {
  /// Nothing queued, nothing being applied, no effect in flight.
  case settled
  /// The bound passed first.
  case timedOut
  /// The runaway guard paused the store; queued actions wait for `resume()`.
  case paused
  /// The store has stopped.
  case stopped
}

/// What stopping the store left behind.
public struct StopReport: Sendable, Equatable {
  /// Actions still queued, or emitted while the instance was stopping: never applied.
  public var unapplied: Int
  /// Actions emitted after stop returned (a plugin breaking the ABI): counted, never applied.
  public var late: Int
  /// Emits refused because they were not actions (see `StoreEvent.emitRefused`).
  public var refused: Int
  /// Actions sent once the store had closed its feature (`StoreEvent.closed`): never applied.
  public var afterClosing: Int

  public init(unapplied: Int, late: Int, refused: Int = 0, afterClosing: Int = 0) {
    self.unapplied = unapplied
    self.late = late
    self.refused = refused
    self.afterClosing = afterClosing
  }
}
