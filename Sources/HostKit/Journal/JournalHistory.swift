/// A journal's records seen as time travel: which state every seq names and how to reach it.
///
/// The rules (see `JournalRecord`): the state after an action S is the state after S - 1 with
/// the action applied; the state after a travel is the state it carries. The effective history of
/// a seq is the chain of actions that made its state: for an action, the history of S - 1 plus
/// the action; for a travel to T, the history of T; for a load, empty. Keep it current with
/// `append` as the writer appends, or build it from `Journal.records()`.
public struct JournalHistory: Sendable {
  private enum Step: Sendable {
    case action(JournalAction)
    case travel(JournalTravel)
  }

  public let path: String
  /// Index `seq - 1`: seqs are dense from 1.
  private var steps: [Step] = []
  /// Snapshot states by seq.
  private var snapshots: [Int: String] = [:]
  /// Crashes by the seq whose state the store restarted from.
  private var crashes: [Int: [JournalCrash]] = [:]
  /// Refusals by the seq whose state refused them.
  private var refusals: [Int: [JournalRefusal]] = [:]
  /// States known in memory only (`note`), index seq (dense, as seqs are): more places a travel
  /// starts from. An array, not a dictionary: noted after every probed action, it costs no hash.
  private var noted: [String?] = []
  private var notedBytes = 0
  /// The most bytes of noted states kept; past it they are forgotten and noting starts again.
  static let notedLimit = 16 << 20

  /// Builds the history of checked records (from `Journal.records()`, in file order).
  public init(path: String, records: [JournalRecord] = []) {
    self.path = path
    steps.reserveCapacity(records.count)
    for record in records { append(record) }
  }

  /// The seq of the current state: the last action or travel (0 before any).
  public var currentSeq: Int { steps.count }

  /// Adds a record the writer appended. Actions and travels must come with the next seq.
  public mutating func append(_ record: JournalRecord) {
    switch record {
    case .action(let action):
      precondition(action.seq == steps.count + 1, "journal history: seq \(action.seq) out of order")
      steps.append(.action(action))
    case .travel(let travel):
      precondition(travel.seq == steps.count + 1, "journal history: seq \(travel.seq) out of order")
      steps.append(.travel(travel))
    case .snapshot(let seq, let state):
      snapshots[seq] = state
    case .crash(let crash):
      // A crash changes no state: the store restarted from the state it names. It is kept to be
      // shown beside that seq.
      crashes[crash.seq, default: []].append(crash)
    case .refusal(let refusal):
      // Changes no state; kept to be shown beside the seq it followed.
      refusals[refusal.seq, default: []].append(refusal)
    case .reload:
      // Followed by a snapshot of the state the new build took over.
      break
    }
  }

  /// The refusals after `seq`, before the next action or travel, in journal order.
  public func refusals(after seq: Int) -> [JournalRefusal] { refusals[seq] ?? [] }

  /// Notes `state` as the state after `seq`, in memory only (the file is not written): a travel
  /// to `seq` or after it restores it instead of replaying the actions since the last snapshot.
  /// Bounded (`notedLimit` bytes); forgetting only costs a later travel its replay.
  public mutating func note(_ state: String, at seq: Int) {
    guard seq >= 0, seq <= currentSeq else { return }
    // A travel carries its state already.
    if seq > 0, case .travel = steps[seq - 1] { return }
    let size = state.utf8.count
    if notedBytes + size > Self.notedLimit {
      noted.removeAll(keepingCapacity: true)
      notedBytes = 0
    }
    if seq >= noted.count { noted.append(contentsOf: repeatElement(nil, count: seq - noted.count + 1)) }
    if let old = noted[seq] { notedBytes -= old.utf8.count }
    noted[seq] = state
    notedBytes += size
  }

  /// The crashes after `seq`, before the next action or travel, in journal order.
  public func crashes(after seq: Int) -> [JournalCrash] { crashes[seq] ?? [] }

  /// The actions that made the state after `seq` (default: the current one), oldest first;
  /// undone actions are not in it.
  public func effectiveActions(at seq: Int? = nil) -> [JournalAction] {
    effectiveActions(at: seq ?? currentSeq, from: 0).actions
  }

  /// Where `:undo` travels: the seq before the last action of the effective history; nil when
  /// that history is empty (the start, or right after a load).
  public var undoTarget: Int? {
    var seq = currentSeq
    while seq > 0 {
      switch steps[seq - 1] {
      case .action: return seq - 1
      case .travel(let travel):
        guard let to = travel.to else { return nil }
        seq = to
      }
    }
    return nil
  }

  /// One seq a state can be restored at, as `seqs()` lists it.
  public struct Entry: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
      /// Seq 0: the state before the first action.
      case start
      /// An action; `effective` when it is one of the actions that made the current state.
      case action(JournalAction, effective: Bool)
      /// A travel (undo, redo, goto, load): its seq names the state it travelled to.
      case travel(JournalTravel)
    }

    public let seq: Int
    public let kind: Kind

    public init(seq: Int, kind: Kind) {
      self.seq = seq
      self.kind = kind
    }
  }

  /// Every seq `restorePoint(to:)` finds a state for, oldest first: the start, each action and
  /// each travel, undone actions included. O(records).
  public func seqs() -> [Entry] {
    let effective = Set(effectiveActions().map(\.seq))
    var entries: [Entry] = []
    // Whether the state after the seq before is known: a snapshot, a travel, or one before it.
    var reachable = snapshots[0] != nil
    if reachable { entries.append(Entry(seq: 0, kind: .start)) }
    for (index, step) in steps.enumerated() {
      let seq = index + 1
      switch step {
      case .action(let action):
        reachable = reachable || snapshots[seq] != nil
        if reachable { entries.append(Entry(seq: seq, kind: .action(action, effective: effective.contains(seq)))) }
      case .travel(let travel):
        reachable = true
        entries.append(Entry(seq: seq, kind: .travel(travel)))
      }
    }
    return entries
  }

  /// At most `count` of the entries `seqs()` lists, from seq `from` on: a page of a long
  /// history. Costs the entries plus a walk of the effective history down to `from`.
  public func entries(from: Int, count: Int) -> [Entry] {
    let from = max(0, from)
    let end = min(currentSeq, from + max(0, count) - 1)
    guard from <= end else { return [] }
    var effective = Set<Int>()
    walkEffective(at: currentSeq, from: from) { action in
      if action.seq <= end { effective.insert(action.seq) }
      return true
    }
    var entries: [Entry] = []
    entries.reserveCapacity(end - from + 1)
    for seq in from...end {
      guard seq > 0 else {
        if snapshots[0] != nil { entries.append(Entry(seq: 0, kind: .start)) }
        continue
      }
      switch steps[seq - 1] {
      case .action(let action):
        entries.append(Entry(seq: seq, kind: .action(action, effective: effective.contains(seq))))
      case .travel(let travel):
        entries.append(Entry(seq: seq, kind: .travel(travel)))
      }
    }
    return entries
  }

  /// The actions of the effective history of `seq` that come at or after `floor`, oldest first,
  /// and the seq before them (a state `restorePoint(to:)` reaches): what to replay to see `seq`
  /// again with some of those actions left out.
  public func effectiveActions(at seq: Int, from floor: Int) -> (base: Int, actions: [JournalAction]) {
    var actions: [JournalAction] = []
    let base = walkEffective(at: seq, from: floor) {
      actions.append($0)
      return true
    }
    return (base, actions.reversed())
  }

  /// The last action the user typed in the effective history of the current seq (what `:undo`
  /// goes back to before), or nil. Walks back only as far as that action: an undo in a long
  /// history costs the steps since it, not the history.
  public var lastUserAction: JournalAction? {
    var found: JournalAction?
    walkEffective(at: currentSeq, from: 0) { action in
      if action.source == .user { found = action }
      return found == nil
    }
    return found
  }

  /// Walks the effective history of `seq` back to `floor` (or to its start: seq 0, or a load),
  /// handing each of its actions to `visit`, newest first, while `visit` returns true; returns
  /// the seq it stopped at.
  @discardableResult
  private func walkEffective(at seq: Int, from floor: Int, _ visit: (JournalAction) -> Bool) -> Int {
    var at = min(seq, currentSeq)
    walk: while at > 0 && at >= floor {
      switch steps[at - 1] {
      case .action(let action):
        guard visit(action) else { break walk }
        at -= 1
      case .travel(let travel):
        guard let to = travel.to else { break walk }
        at = to
      }
    }
    return at
  }

  /// The nearest recorded (or noted) state at or before `seq` and the actions from there to
  /// `seq`: how `:goto` (and redo) reach the state after `seq`.
  public func restorePoint(to seq: Int) throws(HostError) -> JournalRestorePoint {
    guard seq >= 0, seq <= currentSeq else {
      throw HostError(JournalFailure.noSuchSeq(path: path, seq: seq, lastSeq: currentSeq))
    }
    var actions: [JournalAction] = []
    var at = seq
    while true {
      if let state = (at < noted.count ? noted[at] : nil) ?? snapshots[at] {
        return JournalRestorePoint(
          path: path, state: state, stateSeq: at, actions: actions.reversed(), lastSeq: seq)
      }
      guard at > 0 else { break }
      switch steps[at - 1] {
      case .action(let action):
        actions.append(action)
        at -= 1
      case .travel(let travel):
        return JournalRestorePoint(
          path: path, state: travel.state, stateSeq: at, actions: actions.reversed(), lastSeq: seq)
      }
    }
    return JournalRestorePoint(
      path: path, state: nil, stateSeq: 0, actions: actions.reversed(), lastSeq: seq)
  }
}
