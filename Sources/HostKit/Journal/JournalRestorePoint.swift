/// A state from the journal and the actions to apply on top of it: how to reach the state after
/// `lastSeq`.
public struct JournalRestorePoint: Sendable, Equatable {
  /// The journal it came from, for messages.
  public var path: String
  /// The starting state (a JSON object); nil means a fresh instance, before any action.
  public var state: String?
  /// The seq `state` is the state after (0 for a fresh instance).
  public var stateSeq: Int
  /// The actions to reduce on top of `state`, oldest first.
  public var actions: [JournalAction]
  /// The seq whose state this reaches.
  public var lastSeq: Int

  public init(path: String, state: String?, stateSeq: Int, actions: [JournalAction], lastSeq: Int) {
    self.path = path
    self.state = state
    self.stateSeq = stateSeq
    self.actions = actions
    self.lastSeq = lastSeq
  }

  /// Restores `state` into `instance` (when there is one) and reduces the actions, with no
  /// effects; the first action that fails is named. Call it before `start` on an instance
  /// created with the header's config.
  public func apply(to instance: PluginInstance) throws(HostError) {
    if let state {
      do {
        try instance.restore(state)
      } catch {
        throw HostError(
          JournalFailure.replayRefused(
            path: path, feature: instance.plugin.id, what: "the state after seq \(stateSeq)", detail: "\(error)"))
      }
    }
    // In batches: an instance in another process gets them without a round trip each.
    if let failure = instance.performInBatches(actions, calls: { [.reduce($0.json)] }) {
      throw HostError(
        JournalFailure.replayRefused(
          path: path, feature: instance.plugin.id, what: "the action at seq \(failure.item.seq) \(failure.item.json)",
          detail: "\(failure.error)"))
    }
  }
}
