/// A store's journal as its thread uses it: what is applied is recorded, commits come before each
/// view and job, and a failed commit is retried at each later one without dropping anything.
///
/// Confined to the store thread (`StoreLoop`); the unsaved mark others read is kept by
/// `StoreExternalState`.
struct JournalCommits {
  /// Nil once dropped after an error other than a failed commit (or when the store keeps none).
  private(set) var journal: (any StoreJournal)?

  init(_ journal: (any StoreJournal)?) {
    self.journal = journal
  }

  /// What a commit changed in what the user is told.
  enum Change {
    case none
    /// The first failure since the last success: the views are marked unsaved.
    case unsaved(HostError)
    /// The first success after failures: everything recorded meanwhile is on disk.
    case saved
  }

  /// Commits; `external` keeps whether the last commit failed.
  func commit(_ external: StoreExternalState) -> Change {
    guard let journal else { return .none }
    do {
      try journal.commit()
      return external.setUnsaved(nil) ? .saved : .none
    } catch {
      return external.setUnsaved(error) ? .unsaved(error) : .none
    }
  }

  /// Stops journaling after an error; the instance keeps running.
  mutating func drop() {
    journal?.close()
    journal = nil
  }
}
