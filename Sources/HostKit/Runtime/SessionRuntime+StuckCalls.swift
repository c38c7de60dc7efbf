import Foundation

/// Ending a call the focused feature is stuck in, from a front end: Ctrl-C restarts its
/// instance, leaving abandons it. Any thread, between `open` and `close`.
extension SessionRuntime {
  /// Ends the call the focused feature is stuck in (Ctrl-C at a terminal): when its store has not
  /// become idle within `grace`, its instance is interrupted and restarted as after a crash.
  /// Returns the feature's id when it interrupted a call.
  public func interruptStuckCall(grace: Duration) -> String? {
    interruptStuck(grace: grace)?.id
  }

  /// Leaving at once while the focused feature's call does not return (`:quit` or Ctrl-D on a
  /// stuck call): the call is interrupted as by `interruptStuckCall` (a worker is killed) and the
  /// store starts stopping, so that nothing queued behind the call is applied (it is counted as
  /// unapplied) and closing need not wait for the call's timeout; the journal is committed as at
  /// any stop. Returns the feature's id when it interrupted a call.
  public func abandonStuckCall(grace: Duration) -> String? {
    guard let feature = interruptStuck(grace: grace) else { return nil }
    // `stop` waits for the store thread, which may be restarting the instance: not here.
    let store = feature.store
    DispatchQueue.global().async { store.stop() }
    return feature.id
  }

  /// The focused feature, when its store did not become idle within `grace` and its call could
  /// be interrupted.
  private func interruptStuck(grace: Duration) -> PresentedFeature? {
    guard let feature = focused, !feature.store.waitUntilIdle(timeout: grace), feature.store.interruptCall() else {
      return nil
    }
    return feature
  }
}
