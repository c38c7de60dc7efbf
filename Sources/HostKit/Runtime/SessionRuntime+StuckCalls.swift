import Foundation

extension SessionRuntime {
  /// Leaving at once while the focused feature's call does not return (`:quit` or Ctrl-D on a
  /// stuck call): when its store has not become idle within `grace`, the call is interrupted (a
  /// worker is killed) and the store starts stopping, so that nothing queued behind the call is
  /// applied (it is counted as unapplied) and closing need not wait for the call's timeout; the
  /// journal is committed as at any stop. Any thread, between `open` and `close`. Returns the
  /// feature's id when it interrupted a call.
  public func abandonStuckCall(grace: Duration) -> String? {
    guard let feature = focused, !feature.store.waitUntilIdle(timeout: grace), feature.store.interruptCall() else {
      return nil
    }
    // `stop` waits for the store thread, which may be restarting the instance: not here.
    let store = feature.store
    DispatchQueue.global().async { store.stop() }
    return feature.id
  }
}
