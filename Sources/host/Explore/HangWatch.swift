import Foundation
import HostKit

/// Watches an exploration in process for a call that does not return: in process there is no
/// call timeout (nothing can stop the plugin's thread), and the run's own thread may be the one
/// waiting for it, so a thread of its own notices. A hang is the store being busy (applying an
/// action or a job) or the run's thread in a check, while nothing moves (no event from the
/// stores, no check done, no step of the run's) for `limit`; then `report` gets the steps sent
/// so far and never returns.
///
/// Whoever calls `start` calls `end`, which ends the thread and waits for it.
// @unchecked: every stored var is guarded by `condition`.
final class HangWatch: @unchecked Sendable {
  private let condition = NSCondition()
  private var steps: [ExploreStep] = []
  private var feature: PresentedFeature?
  private var moves = 0
  private var ended = false
  private var threadEnded = false

  let limit: Duration
  /// The stores' progress (the events they reported, the checks made), read each turn.
  private let heard: @Sendable () -> Int
  /// Whether the run's thread is in a call of a check (`ProbeListener.checkPending`).
  private let checking: @Sendable () -> Bool
  private let report: @Sendable (_ steps: [ExploreStep], _ feature: String) -> Never
  /// How often it looks: a hang is reported at most this late.
  private static let turn = 0.05

  init(
    limit: Duration, heard: @escaping @Sendable () -> Int, checking: @escaping @Sendable () -> Bool,
    report: @escaping @Sendable ([ExploreStep], String) -> Never
  ) {
    self.limit = limit
    self.heard = heard
    self.checking = checking
    self.report = report
  }

  /// Starts the watching thread.
  func start() {
    // The thread holds the watch, not the other way round: no cycle.
    let thread = Thread { [self] in watch() }
    thread.name = "explore hang watch"
    thread.start()
  }

  /// The run sends `step` to `feature`.
  func sending(_ step: ExploreStep, to feature: PresentedFeature) {
    condition.lock()
    steps.append(step)
    // Compared first: a store is held weakly elsewhere, so each retain of its feature is slow.
    if self.feature !== feature { self.feature = feature }
    moves += 1
    condition.unlock()
  }

  /// The run ended a step (settled, probed).
  func moved() {
    condition.lock()
    moves += 1
    condition.unlock()
  }

  /// Ends the thread and waits for it. Idempotent.
  func end() {
    condition.lock()
    defer { condition.unlock() }
    ended = true
    condition.broadcast()
    while !threadEnded { condition.wait() }
  }

  private func watch() {
    let clock = ContinuousClock()
    var last = -1
    var since = clock.now
    while true {
      condition.lock()
      if !ended { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.turn)) }
      if ended {
        threadEnded = true
        condition.broadcast()
        condition.unlock()
        return
      }
      // Not the steps: a copy held here would make the run's next step copy them all.
      let (feature, moves) = (self.feature, self.moves)
      condition.unlock()
      let progress = moves + heard()
      // Idle means no call is running: waiting for effects is the settle timeout's business.
      let busy = checking() || feature.map { !$0.store.waitUntilIdle(timeout: .zero) } ?? false
      if progress != last || !busy {
        last = progress
        since = clock.now
      } else if clock.now - since >= limit {
        condition.lock()
        let steps = self.steps
        condition.unlock()
        report(steps, feature?.id ?? "the feature")
      }
    }
  }
}
