extension SessionRuntime {
  /// Ends the call the focused feature is stuck in (Ctrl-C at a terminal): when its store has not
  /// become idle within `grace`, its instance is interrupted and restarted as after a crash.
  /// Any thread, between `open` and `close`. Returns the feature's id when it interrupted a call.
  public func interruptStuckCall(grace: Duration) -> String? {
    guard let feature = focused, !feature.store.waitUntilIdle(timeout: grace) else { return nil }
    return feature.store.interruptCall() ? feature.id : nil
  }
}
