import Foundation
import Synchronization

/// What the runtime does with a feature its store closed after losing its instance too often:
/// in a flow, goes back from it; alone on the stack, the run has ended (`hasEndedByClosing`).
extension SessionRuntime {
  /// Called on the closed feature's store thread, which must not wait for navigation (going
  /// back stops stores): the navigation runs on another thread.
  func closed(_ feature: PresentedFeature) {
    anyClosed.store(true, ordering: .releasing)
    closings.enter()
    let alert = settings.featureClosed
    DispatchQueue.global().async { [self] in
      defer {
        closings.leave()
        alert?()
      }
      guard let coordinator, let top = coordinator.top, top.features.contains(where: { $0 === feature }) else {
        // Not shown (a feature under the top frame): it stays closed until it is revealed.
        return
      }
      do throws(HostError) {
        try coordinator.back()
      } catch {
        // Nothing to go back to: the run ends with it (`hasEndedByClosing`).
      }
    }
  }

  /// Waits until the navigation that closed features started is done.
  public func waitForClosings() { closings.wait() }

  /// Whether the feature input goes to was closed after losing its instance: nothing is left to
  /// run, and a front end ends the run with a failure status. Waits for `waitForClosings` first.
  public var hasEndedByClosing: Bool {
    guard anyClosed.load(ordering: .acquiring) else { return false }
    waitForClosings()
    return focused?.store.isClosed ?? false
  }
}

extension SessionRuntime {
  /// Ends the call the focused feature is stuck in (Ctrl-C at a terminal): when its store has not
  /// become idle within `grace`, its instance is interrupted and restarted as after a crash.
  /// Any thread, between `open` and `close`. Returns the feature's id when it interrupted a call.
  public func interruptStuckCall(grace: Duration) -> String? {
    guard let feature = focused, !feature.store.waitUntilIdle(timeout: grace) else { return nil }
    return feature.store.interruptCall() ? feature.id : nil
  }
}
