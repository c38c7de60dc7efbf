/// Where a store is in its life: one value instead of a set of flags, changed only through the
/// transitions below (a transition that is not allowed traps in debug builds).
///
/// Guarded by the store's lock (`StoreExternalState`).
enum StoreLife {
  /// Made; its instance has not started yet.
  case starting
  /// Its instance started: actions are applied.
  case running
  /// Stopping: nothing more is applied; asked by `stop`, or by the store itself after losing its
  /// instance for good (`afterLoss`).
  case closing(afterLoss: Bool)
  /// The store thread has ended and the instance is destroyed; `retired` answers what is asked
  /// afterwards.
  case closed(afterLoss: Bool, retired: RetiredInstance)

  /// Whether the instance started and the store is not closing.
  var isRunning: Bool {
    if case .running = self { return true }
    return false
  }

  /// Nil while the store starts or runs; once it is closing or closed, whether that came after
  /// the loss of its instance.
  private var endAfterLoss: Bool? {
    switch self {
    case .starting, .running: nil
    case .closing(let afterLoss), .closed(let afterLoss, _): afterLoss
    }
  }

  /// Whether the store is closing or closed: actions are no longer applied.
  var isEnding: Bool { endAfterLoss != nil }

  /// Whether the store closed its feature after losing the instance (closing or closed).
  var endedAfterLoss: Bool { endAfterLoss == true }

  var isClosed: Bool {
    if case .closed = self { return true }
    return false
  }

  /// What answers calls once the store has closed.
  var retired: RetiredInstance? {
    if case .closed(_, let retired) = self { return retired }
    return nil
  }

  /// The instance started. A store asked to stop meanwhile stays closing.
  mutating func started() {
    switch self {
    case .starting: self = .running
    case .closing: break
    case .running, .closed: assertionFailure("a store's instance starts once, before the store closes (\(self))")
    }
  }

  /// `stop` was called: returns false when the store was already closing or closed.
  mutating func stopRequested() -> Bool {
    switch self {
    case .starting, .running:
      self = .closing(afterLoss: false)
      return true
    case .closing, .closed:
      return false
    }
  }

  /// The instance was lost and not replaced: the store closes its feature.
  mutating func lost() {
    switch self {
    case .starting, .running, .closing: self = .closing(afterLoss: true)
    case .closed: assertionFailure("a closed store has no instance to lose")
    }
  }

  /// The store thread finished closing.
  mutating func closed(retired: RetiredInstance) {
    guard case .closing(let afterLoss) = self else {
      assertionFailure("a store closes only after closing began (\(self))")
      return
    }
    self = .closed(afterLoss: afterLoss, retired: retired)
  }
}

/// Which of the queued items the store thread may take: all of them, all but the feedback
/// loop's actions (held by Ctrl-C at a terminal), or only jobs (paused by the runaway guard).
///
/// Guarded by the store's lock.
enum StoreGate {
  case open
  /// `Store.holdFeedback`: feedback actions wait in the inbox until `resume`.
  case feedbackHeld
  /// The runaway guard paused the store: actions wait until `resume`; jobs still run.
  case paused

  /// Whether the store thread may take `item` now.
  func admits(_ item: InboxItem) -> Bool {
    switch self {
    case .open: true
    case .feedbackHeld: !item.isFeedbackAction
    case .paused: item.isJob
    }
  }
}

/// What the store thread is doing, as others see it.
///
/// Guarded by the store's lock.
enum StoreActivity: Equatable {
  case idle
  /// Applying a batch taken from the inbox; `withFeedback` when the batch holds a feedback action
  /// (a regulation is running then too, between its timer firing and the plugin scheduling the
  /// next).
  case applying(withFeedback: Bool)

  var isApplying: Bool {
    if case .applying = self { return true }
    return false
  }
}
