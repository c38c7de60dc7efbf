/// Actions in a row that go to the instance together (a worker answers them in one exchange),
/// with where each came from: two arrays, which the instance takes as they are (an array of
/// pairs would be copied into one of strings, and destroyed element by element through the
/// runtime's generic tuple witnesses).
struct ActionRun {
  var actions: [String] = []
  var sources: [ActionSource] = []
  var count: Int { actions.count }
  /// After which actions the journal wants a snapshot, taken in the run's stream.
  var snapshots = SnapshotPoints.none

  /// Two or more actions in a row at `index` of `batch` that can go together, keeping what one at
  /// a time would do: none past the one at which the runaway guard pauses (`feedbackRun`
  /// feedback actions applied in a row so far, `maxFeedbackSteps` at most), and, where the
  /// journal cannot say when its snapshots come (`snapshotEvery` 0), none past the one after
  /// which it wants one (`snapshotLimit`). Nil when only one can.
  init?(
    in batch: [InboxItem], from index: Int, snapshotLimit: Int, snapshotEvery: Int, feedbackRun: Int,
    maxFeedbackSteps: Int
  ) {
    let limit = snapshotEvery > 0 ? Int.max : snapshotLimit
    var feedbacks = feedbackRun
    // By index, each item matched where it lies: a loop over the slice copied every item whole.
    var next = index
    while next < batch.count, count < limit, case .action(let json, let source, _) = batch[next] {
      next += 1
      actions.append(json)
      sources.append(source)
      if source == .feedback {
        feedbacks += 1
        if feedbacks >= maxFeedbackSteps { break }
      } else if source != .effect {
        feedbacks = 0
      }
    }
    guard count > 1 else { return nil }
    if snapshotLimit <= count { snapshots = SnapshotPoints(first: snapshotLimit - 1, every: snapshotEvery) }
  }
}
