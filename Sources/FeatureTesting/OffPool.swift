import Foundation

/// Runs `body`, which blocks (a child process, a store's wait), on a thread of its own, so waiting
/// never holds a thread of Swift's cooperative pool (one per core, shared by every test running in
/// parallel).
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}

/// `offPool` for a body that throws.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await offPool { Result { try body() } }.get()
}
