import FeatureTesting
import Foundation

/// Runs `body`, which blocks (a child process), on a thread of its own, so a long build never
/// holds one of the cooperative pool's threads (one per core) that the other tests need.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
  }
}
