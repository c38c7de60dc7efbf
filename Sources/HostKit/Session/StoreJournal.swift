/// What a store records its applied actions into. Called on the store thread only, in order.
public protocol StoreJournal: AnyObject {
  /// Records an action the instance just applied; returns its sequence number. May take a
  /// snapshot of `instance` when one is due.
  func recordApplied(action: String, source: ActionSource, instance: PluginInstance) throws(HostError) -> Int

  /// Makes everything recorded so far durable. The store calls it before it draws a view or
  /// answers a job (`:state`), so whatever the user saw is on disk.
  func commit() throws(HostError)

  /// Commits and releases the file when the store stops.
  func close()

  /// The sequence number of the last recorded step (0 before any).
  var lastSequence: Int { get }

  /// Records that the instance was lost (see `JournalCrash`) and commits it.
  func recordCrash(call: String, action: String?, loss: InstanceLoss) throws(HostError)

  /// Records that the instance refused `action` from `source`, saying `error` (see
  /// `JournalRefusal`); it changed nothing. Committed with the next commit.
  func recordRefusal(action: String, source: ActionSource, error: String) throws(HostError)

  /// Records that the instance was replaced by one of another build, and the state it took over
  /// (`state`, which restore starts from), and commits it.
  func recordReload(_ reload: JournalReload, state: String) throws(HostError)

  /// What rebuilds the last recorded state on a new instance: how a store restarts a lost one.
  /// Nil when this journal cannot tell (the store then closes instead of restarting).
  func restorePointForRestart() throws(HostError) -> JournalRestorePoint?

  /// How many actions may be applied before a snapshot can be due: the store sends at most that
  /// many to an instance together, unless `actionsBetweenSnapshots` says where the next ones
  /// come (then the state after each is taken in the same go).
  var actionsBeforeSnapshot: Int { get }

  /// How many actions come between two snapshots after the next (0: it cannot tell). Where it
  /// tells, a run sent to an instance together need not end at a snapshot: the state is taken in
  /// the run's stream after `actionsBeforeSnapshot` actions, then after every this many.
  var actionsBetweenSnapshots: Int { get }
}

extension StoreJournal {
  /// A journal that does not say takes actions one at a time.
  public var actionsBeforeSnapshot: Int { 1 }

  /// A journal that does not say has runs end where a snapshot may be due.
  public var actionsBetweenSnapshots: Int { 0 }

  /// A journal that keeps no crash lines.
  public func recordCrash(call: String, action: String?, loss: InstanceLoss) throws(HostError) {}

  /// A journal that keeps no refusal lines.
  public func recordRefusal(action: String, source: ActionSource, error: String) throws(HostError) {}

  /// A journal that keeps no reload lines.
  public func recordReload(_ reload: JournalReload, state: String) throws(HostError) {}

  /// A journal that cannot rebuild a state.
  public func restorePointForRestart() throws(HostError) -> JournalRestorePoint? { nil }
}
