/// How long a run of calls the host knows in advance (replay, restore, time travel) is sent to an
/// instance in batches (`PluginInstance.perform`) rather than one round trip per call.
public enum InstanceBatch {
  /// Items (actions, mostly) in one batch: enough that a worker's round trips stop mattering,
  /// few enough that one batch's calls and answers stay small beside a long journal.
  public static let items = 1_024
}

/// The first call of a batched run that failed: the item it was made for, and which call.
public struct InstanceBatchFailure<Item> {
  public let item: Item
  public let call: InstanceCall
  public let error: PluginCallError
}

extension PluginInstance {
  /// Makes `calls(item)` for each of `items`, in order, `batchSize` items to a batch, handing
  /// each answer to `answered` with its item and call. Stops at the first failure and returns
  /// it, where a run one call at a time would have stopped: the later batches are not sent, and
  /// the answers after it in its own batch (made all the same, see `perform`) are dropped.
  /// `answered` may not call this instance.
  public func performInBatches<Items: Collection>(
    _ items: Items, batchSize: Int = InstanceBatch.items, calls: (Items.Element) -> [InstanceCall],
    answered: (Items.Element, InstanceCall, InstanceAnswer) -> Void = { _, _, _ in }
  ) -> InstanceBatchFailure<Items.Element>? {
    var start = items.startIndex
    while start < items.endIndex {
      let end = items.index(start, offsetBy: max(1, batchSize), limitedBy: items.endIndex) ?? items.endIndex
      var batch: [InstanceCall] = []
      // Which item each call of the batch was made for.
      var owners: [Items.Index] = []
      var index = start
      while index < end {
        for call in calls(items[index]) {
          batch.append(call)
          owners.append(index)
        }
        index = items.index(after: index)
      }
      var next = 0
      var failure: InstanceBatchFailure<Items.Element>?
      perform(batch) { result in
        defer { next += 1 }
        guard failure == nil, next < batch.count else { return }
        switch result {
        case .success(let answer): answered(items[owners[next]], batch[next], answer)
        case .failure(let error):
          failure = InstanceBatchFailure(item: items[owners[next]], call: batch[next], error: error)
        }
      }
      assert(next == batch.count, "perform answers every call of its batch")
      if let failure { return failure }
      start = end
    }
    return nil
  }
}
