import Foundation

/// A run's journal as the store and the time-travel commands use it: records applied actions,
/// takes snapshots when due, and moves the live instance through the recorded history.
///
/// Used on the store thread only: by the store itself, and by `:undo` and friends inside
/// `Store.perform`. The history for time travel is read from the file the first time it is
/// needed, so restoring a long session does not pay for it.
// @unchecked: confined to the store thread, as said above.
public final class SessionJournal: StoreJournal, @unchecked Sendable {
  public let path: String
  private let writer: JournalWriter

  /// The journal's header (line 1). Never changes: may be read on any thread.
  public var header: JournalHeader { writer.header }
  private var history: JournalHistory?
  /// Seqs left by `:undo`, for `:redo`; cleared by any newly applied action.
  private var redoStack: [Int] = []
  private var closed = false

  private init(path: String, writer: JournalWriter) {
    self.path = path
    self.writer = writer
  }

  /// Creates a new journal at `path`. Record the fresh state with `recordInitialState` before start.
  /// A `temporary` journal (deleted when the run ends) is not synced to disk.
  /// `clock` dates the header and times the actions.
  public static func create(
    at path: String, plugin: LoadedPlugin, config: String, temporary: Bool = false, clock: JournalClock = .system
  ) throws(HostError) -> SessionJournal {
    let writer = try JournalWriter.create(
      at: path, header: JournalHeader(plugin: plugin, config: config, created: clock.date),
      limits: .init(syncs: !temporary), clock: clock)
    return SessionJournal(path: path, writer: writer)
  }

  /// What opening an existing journal found.
  public struct Opened {
    public let journal: SessionJournal
    /// The state and the actions that rebuild the last state.
    public let restorePoint: JournalRestorePoint
    /// The config the session was created with.
    public let config: String
    /// A last line torn by a crash, which was cut.
    public let tornTail: TornTail?
    /// A line whose JSON did not parse (a bad emit an older host recorded): the state restored is
    /// the one before it, and it and the lines after it were moved to `setAsidePath`.
    public var damage: JournalDamage?
    public var setAsidePath: String?
  }

  /// Opens the journal at `path` for `plugin`, checked, with a torn last line cut. A line whose
  /// JSON does not parse after the last state is set aside with what follows it (see `Opened`).
  public static func open(
    at path: String, plugin: LoadedPlugin, clock: JournalClock = .system
  ) throws(HostError) -> Opened {
    let (writer, journal) = try JournalWriter.openForAppend(at: path, feature: plugin.id, clock: clock)
    let (point, damage) = try journal.restorePoint(stoppingAtDamage: true)
    guard let damage else {
      return Opened(
        journal: SessionJournal(path: path, writer: writer), restorePoint: point,
        config: journal.header.config ?? "{}", tornTail: journal.tornTail)
    }
    let aside = try writer.setAside(from: damage)
    var opened = try open(at: path, plugin: plugin, clock: clock)
    opened.damage = damage
    opened.setAsidePath = aside
    return opened
  }

  /// Records the state of a fresh instance as seq 0, so time travel can always start from a state.
  public func recordInitialState(_ state: String) throws(HostError) {
    try writer.append(snapshot: state)
    history?.append(.snapshot(seq: writer.lastSeq, state: state))
    try writer.commit()
  }

  // MARK: - StoreJournal

  public var lastSequence: Int { writer.lastSeq }

  public func recordApplied(action: String, source: ActionSource, instance: PluginInstance) throws(HostError) -> Int {
    let seq = try writer.append(action: action, source: source)
    history?.append(.action(JournalAction(seq: seq, source: source, json: action, at: writer.lastActionAt)))
    redoStack.removeAll()
    // An instance in the middle of a batch takes it at the next action that can (see
    // `PluginInstance.canSnapshotNow`): only after a refusal earlier in the batch.
    if writer.snapshotDue, instance.canSnapshotNow {
      // From the plugin's bytes to the file: a large state is not copied on the way.
      let written: Result<String?, HostError>
      let keepsHistory = history != nil
      do {
        written = try instance.withSnapshot { [writer] bytes in
          Result { () throws(HostError) in
            try writer.append(snapshot: bytes)
            return keepsHistory ? String(decoding: bytes, as: UTF8.self) : nil
          }
        }
      } catch {
        if let loss = error.loss {
          // The action is recorded; the store restarts the instance from it.
          throw HostError(StoreFailure.crashed(feature: instance.plugin.id, loss: loss, call: error.call, action: nil))
        }
        throw HostError(
          JournalFailure.snapshotFailed(feature: instance.plugin.id, forJournal: true, detail: "\(error)"))
      }
      if let state = try written.get() { history?.append(.snapshot(seq: seq, state: state)) }
    }
    return seq
  }

  public var actionsBeforeSnapshot: Int {
    let every = writer.snapshotPolicy.everyActions
    return every > 0 ? max(1, every - writer.actionsSinceState) : .max
  }

  public var actionsBetweenSnapshots: Int { max(0, writer.snapshotPolicy.everyActions) }

  public func commit() throws(HostError) { try writer.commit() }

  public func recordCrash(call: String, action: String?, loss: InstanceLoss) throws(HostError) {
    let crash = JournalCrash(seq: writer.lastSeq, call: call, action: action, loss: loss)
    try writer.append(crash: crash)
    history?.append(.crash(crash))
    try writer.commit()
  }

  public func recordRefusal(action: String, source: ActionSource, error: String) throws(HostError) {
    let refusal = try writer.append(refused: action, source: source, error: error)
    history?.append(.refusal(refusal))
  }

  public func recordReload(_ reload: JournalReload, state: String) throws(HostError) {
    try writer.append(reload: reload, state: state)
    history?.append(.reload(reload))
    history?.append(.snapshot(seq: writer.lastSeq, state: state))
    try writer.commit()
  }

  /// Read from the file (after a commit): only the lines from the last state on are parsed.
  public func restorePointForRestart() throws(HostError) -> JournalRestorePoint? {
    try writer.commit()
    if let history { return try history.restorePoint(to: history.currentSeq) }
    return try Journal.read(path: path).restorePoint()
  }

  public func close() {
    guard !closed else { return }
    closed = true
    try? writer.close()
  }

  // MARK: - Time travel (on the store thread)

  /// Notes `state` as the state after the last seq, in memory (see `JournalHistory.note`), for
  /// travels to start from: a caller that has the state anyway (exploration's probe) saves the
  /// replay a travel would make. Reads the history from the file the first time.
  public func noteState(_ state: String) {
    // Loaded once; not copied out on every note (each action's, exploring).
    if history == nil, (try? loadedHistory()) == nil { return }
    history?.note(state, at: writer.lastSeq)
  }

  /// The effective history, oldest first: the actions that made the current state.
  public func effectiveActions() throws(HostError) -> [JournalAction] {
    try loadedHistory().effectiveActions()
  }

  /// Every seq `goto` takes, oldest first (see `JournalHistory.seqs`).
  public func seqs() throws(HostError) -> [JournalHistory.Entry] {
    try loadedHistory().seqs()
  }

  /// Goes back to the state before the last action the user typed, with everything that followed
  /// it (its effects, feedbacks, lifecycle actions). Returns that seq.
  @discardableResult
  public func undo(on instance: PluginInstance, committing: Bool = true) throws(HostError) -> Int {
    let history = try loadedHistory()
    guard let last = history.lastUserAction else {
      throw HostError(JournalFailure.nothingToUndo)
    }
    let target = last.seq - 1
    let left = history.currentSeq
    try travel(.undo, to: target, on: instance, committing: committing)
    redoStack.append(left)
    return target
  }

  /// Goes forward again to the state the last `undo` left. Returns that seq.
  @discardableResult
  public func redo(on instance: PluginInstance, committing: Bool = true) throws(HostError) -> Int {
    guard let target = redoStack.last else {
      throw HostError(JournalFailure.nothingToRedo)
    }
    let stack = redoStack
    try travel(.redo, to: target, on: instance, committing: committing)
    redoStack = stack.dropLast()
    return target
  }

  /// Goes to the state after `seq` (reached through the nearest recorded state). `committing`
  /// (here and in `undo` and `redo`): whether the travel's line is on disk when this returns;
  /// else the next commit writes it.
  public func goto(_ seq: Int, on instance: PluginInstance, committing: Bool = true) throws(HostError) {
    try travel(.goto, to: seq, on: instance, committing: committing)
    redoStack.removeAll()
  }

  /// Replaces the state with `state` (checked by the plugin's restore) and records it.
  public func load(_ state: String, on instance: PluginInstance) throws(HostError) {
    do {
      try instance.restore(state)
    } catch {
      if let loss = error.loss { throw HostError(JournalFailure.loadLost(feature: instance.plugin.id, loss: loss)) }
      throw HostError(JournalFailure.loadRefused(feature: instance.plugin.id, detail: "\(error)"))
    }
    try record(.load, to: nil, on: instance)
    redoStack.removeAll()
  }

  private func travel(
    _ kind: TravelKind, to seq: Int, on instance: PluginInstance, committing: Bool
  ) throws(HostError) {
    let point = try loadedHistory().restorePoint(to: seq)
    guard point.state != nil else {
      throw HostError(JournalFailure.noStateBefore(path: path, seq: seq))
    }
    let before = try Self.state(of: instance)
    do {
      try point.apply(to: instance)
    } catch {
      // Put the live state back as it was: a failed travel loses nothing.
      try? instance.restore(before)
      throw error
    }
    try record(kind, to: seq, on: instance, committing: committing)
  }

  /// The live state of `instance`, for a travel; a failed snapshot is worded as the journal's.
  private static func state(of instance: PluginInstance) throws(HostError) -> String {
    do {
      return try instance.snapshot()
    } catch {
      throw HostError(
        JournalFailure.snapshotFailed(feature: instance.plugin.id, forJournal: false, detail: "\(error)"))
    }
  }

  private func record(
    _ kind: TravelKind, to seq: Int?, on instance: PluginInstance, committing: Bool = true
  ) throws(HostError) {
    let state = try Self.state(of: instance)
    let travelSeq = try writer.append(travel: kind, to: seq, state: state)
    history?.append(.travel(JournalTravel(seq: travelSeq, kind: kind, to: seq, state: state)))
    if committing { try writer.commit() }
  }

  /// Runs `body` on the history (read from the file the first time), on the store thread: a
  /// reader takes what it needs from it (a page of entries, a restore point), not a copy of it.
  public func withHistory<T>(_ body: (JournalHistory) throws(HostError) -> T) throws(HostError) -> T {
    try body(try loadedHistory())
  }

  private func loadedHistory() throws(HostError) -> JournalHistory {
    if let history { return history }
    try writer.commit()
    let loaded = try Journal.read(path: path).history()
    history = loaded
    return loaded
  }
}
