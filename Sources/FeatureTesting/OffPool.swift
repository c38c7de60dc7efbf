import Foundation

/// Runs `body`, which blocks, on a thread of its own, so waiting never holds a thread of Swift's
/// cooperative pool (one per core, shared by every test running in parallel).
func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}
