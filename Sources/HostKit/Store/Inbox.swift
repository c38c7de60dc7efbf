/// One thing waiting for the store thread.
enum InboxItem {
  /// An action, with the input line it was read from (0: not from numbered input).
  case action(String, ActionSource, inputLine: Int = 0)
  /// A navigation step, delivered in order with the actions around it.
  case step(String)
  /// An emit that is not an action, reported in order with the actions around it.
  case refusedEmit(HostError)
  /// A job for the store thread; `commitsFirst`: the journal is committed before it, as what it
  /// shows (`:state`) must be on disk.
  case job((any PluginInstance) -> Void, commitsFirst: Bool)

  var isAction: Bool {
    if case .action = self { return true }
    return false
  }

  var isJob: Bool {
    if case .job = self { return true }
    return false
  }

  var isFeedbackAction: Bool {
    if case .action(_, .feedback, _) = self { return true }
    return false
  }

  /// An action whose loss at a stop the report counts: a feedback's is not, as a feedback runs
  /// again from the state it came from when that state is restored (a covered levels' held step
  /// was reported as "not applied" after every flow that passed it by).
  var isLostAtStop: Bool { isAction && !isFeedbackAction }
}

extension [InboxItem] {
  /// Whether a feedback action is among the items. A closure, not a key path: a key path copies
  /// each item it reads.
  var holdsFeedbackAction: Bool { contains { $0.isFeedbackAction } }
}

/// The store's FIFO inbox: what waits for the store thread, how much a user sender may queue
/// before it waits (backpressure), and the counts the stop report gives of what was never applied.
///
/// Guarded by the store's lock (`StoreExternalState`); the waiting itself is the lock's.
struct Inbox {
  /// User actions queued at most before a sender waits.
  let capacity: Int
  private(set) var items: [InboxItem] = []
  /// The most items ever queued at once (tests: what backpressure bounds).
  private(set) var peak = 0
  /// What `stop` reports: actions never applied, emits refused, actions sent after the end.
  private(set) var report = StopReport(unapplied: 0, late: 0)

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  var isEmpty: Bool { items.isEmpty }
  var isFull: Bool { items.count >= capacity }

  /// Whether an item the store thread may take under `gate` is queued.
  func hasRunnableItem(under gate: StoreGate) -> Bool {
    switch gate {
    case .open: !items.isEmpty
    case .feedbackHeld, .paused: items.contains(where: gate.admits)
    }
  }

  /// Whether a feedback action waits.
  var holdsFeedbackAction: Bool { items.holdsFeedbackAction }

  /// Queues `item` unless the store's `life` no longer applies actions (then an action is only
  /// counted). Returns whether it was queued.
  mutating func accept(_ item: InboxItem, life: StoreLife) -> Bool {
    switch life {
    case .starting, .running:
      items.append(item)
      if items.count > peak { peak = items.count }
      return true
    case .closing:
      if item.isLostAtStop { report.unapplied += 1 }
      return false
    case .closed(let afterLoss, _):
      // After a closing, typed lines are expected (a pipe reads ahead): not the plugin's fault.
      if item.isAction {
        if afterLoss { report.afterClosing += 1 } else { report.late += 1 }
      }
      return false
    }
  }

  /// Queues a job: jobs are taken even while the store closes (they get the retired instance).
  mutating func append(job body: @escaping (any PluginInstance) -> Void, commitsFirst: Bool) {
    items.append(.job(body, commitsFirst: commitsFirst))
  }

  /// Queues a timer's actions as emitted.
  mutating func append(actions: [String], source: ActionSource) {
    items.append(contentsOf: actions.map { .action($0, source) })
  }

  /// Moves the items `gate` admits into `batch` (empty), in order; the others stay.
  mutating func take(under gate: StoreGate, into batch: inout [InboxItem]) {
    switch gate {
    case .open:
      swap(&batch, &items)
    case .feedbackHeld, .paused:
      batch = items.filter(gate.admits)
      items.removeAll(where: gate.admits)
    }
  }

  /// Puts the items not handled back at the front, before anything queued meanwhile.
  mutating func putBack(_ rest: ArraySlice<InboxItem>) {
    items.insert(contentsOf: rest, at: 0)
  }

  /// Takes everything left at the end, counting its actions (but feedbacks') as never applied.
  mutating func drain() -> [InboxItem] {
    let left = items
    items.removeAll()
    report.unapplied += left.count { $0.isLostAtStop }
    return left
  }

  mutating func countUnapplied(_ count: Int) { report.unapplied += count }

  mutating func countRefusedEmit() { report.refused += 1 }
}
