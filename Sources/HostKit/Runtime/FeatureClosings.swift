import Foundation
import Synchronization

/// What the runtime does with a feature its store closed after losing its instance too often:
/// in a flow, goes back from it; alone on the stack, the run has ended. It keeps count of the
/// navigation closings start, so a front end can wait for it before it looks.
final class FeatureClosings: Sendable {
  /// Navigation that closed features started and that has not finished.
  private let pending = DispatchGroup()
  /// Set once any feature was closed: until then `anyClosed` costs one atomic load per input line.
  private let closedOnce = Atomic<Bool>(false)
  /// Told (on another thread) once a closing's navigation is done.
  private let alert: (@Sendable () -> Void)?

  init(alert: (@Sendable () -> Void)?) {
    self.alert = alert
  }

  /// `feature` was closed. Called on its store thread, which must not wait for navigation (going
  /// back stops stores): the navigation runs on another thread.
  func closed(_ feature: PresentedFeature, in coordinator: Coordinator?) {
    closedOnce.store(true, ordering: .releasing)
    pending.enter()
    let alert = self.alert
    DispatchQueue.global().async { [pending] in
      defer {
        pending.leave()
        alert?()
      }
      guard let coordinator, let top = coordinator.top, top.features.contains(where: { $0 === feature }) else {
        // Not shown (a feature under the top frame): it stays closed until it is revealed.
        return
      }
      do throws(HostError) {
        try coordinator.back()
      } catch {
        // Nothing to go back to: the run ends with it (`SessionRuntime.hasEndedByClosing`).
      }
    }
  }

  /// Whether any feature was closed.
  var anyClosed: Bool { closedOnce.load(ordering: .acquiring) }

  /// Waits until the navigation closings started is done.
  func wait() { pending.wait() }
}
