import Dispatch

/// Where effects run: threads of FeatureKit's own, not Swift's cooperative pool.
///
/// The cooperative pool has one thread per core. A host or a test that blocks pool threads while
/// it waits for an instance to settle would otherwise starve the very effects it waits for.
final class EffectExecutor: TaskExecutor, Sendable {
  static let shared = EffectExecutor()

  private let queue = DispatchQueue(label: "featurekit.effects", attributes: .concurrent)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
