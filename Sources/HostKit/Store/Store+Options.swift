extension Store {
  /// How a store runs: written by its owner once, read by the store thread.
  public struct Options: Sendable {
    /// Feedback actions applied in a row, with no action from elsewhere, before the store pauses.
    public var maxFeedbackSteps = RunSettingCatalogue.maxFeedbackSteps.defaultValue
    /// Whether to render after changes and report `viewChanged`.
    public var rendersViews: Bool = true
    /// The clock behind the instance's timers (`fh.clock/1`).
    public var clock: Clock = .real
    /// Whether a lost instance (see `InstanceLoss`) is restarted or its feature closed.
    public var recovery: RecoveryPolicy = .standard
    /// Whether a run of queued actions goes to the instance together (a worker process answers
    /// them in one exchange). An observer that calls the instance at each `.applied` (a test's
    /// snapshot after every action) needs false: the later actions are already in the worker.
    public var batchesDispatches: Bool = true
    /// User actions queued at most: a sender faster than the plugin waits in `send` until the
    /// store has taken them (backpressure), so a pipe of a million lines never sits in memory.
    /// Actions from effects and feedbacks are never held back (the store itself may be sending).
    public var inboxCapacity: Int = 4_096
    /// What the views are drawn with (`fh.render_options/1`), asked at each render: the
    /// terminal's width as it is now. Nil: the plain `render` (a pipe).
    public var renderHints: (@Sendable () -> RenderHints)?

    public init(
      maxFeedbackSteps: Int = RunSettingCatalogue.maxFeedbackSteps.defaultValue, rendersViews: Bool = true,
      clock: Clock = .real,
      recovery: RecoveryPolicy = .standard, batchesDispatches: Bool = true, inboxCapacity: Int = 4_096
    ) {
      self.inboxCapacity = max(1, inboxCapacity)
      self.maxFeedbackSteps = maxFeedbackSteps
      self.rendersViews = rendersViews
      self.clock = clock
      self.recovery = recovery
      self.batchesDispatches = batchesDispatches
    }
  }

  /// What time a store's timers follow.
  public typealias Clock = StoreClock
}
