/// When the journal should get a snapshot line, so that a restore replays few actions.
///
/// The writer counts actions since the last snapshot or travel; the store asks
/// `JournalWriter.snapshotDue` after each action and then appends `instance.snapshot()`.
public struct SnapshotPolicy: Sendable, Equatable {
  /// Actions between snapshots; 0 turns snapshots off (a restore then replays everything).
  public var everyActions: Int

  public init(everyActions: Int = 1000) {
    self.everyActions = everyActions
  }

  public static let `default` = SnapshotPolicy()

  /// Whether a snapshot is due after `actionsSinceState` actions without one.
  public func isDue(actionsSinceState: Int) -> Bool {
    everyActions > 0 && actionsSinceState >= everyActions
  }
}
