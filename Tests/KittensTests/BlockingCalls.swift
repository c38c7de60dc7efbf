import Foundation
import HostKit

/// Runs `body`, which blocks, on a thread of its own, and awaits it without holding a thread of
/// Swift's cooperative pool, which has one thread per core and runs the other tests.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
  }
}

/// `blocking` for a body that cannot throw.
func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}

extension Store {
  /// `waitUntilSettled`, awaited off the cooperative pool.
  func settled(within timeout: Duration = .seconds(10)) async -> SettleResult {
    await blocking { self.waitUntilSettled(timeout: timeout) }
  }

  /// `stop`, awaited off the cooperative pool (stopping waits for the plugin's effects to end).
  @discardableResult
  func stopped() async -> StopReport {
    await blocking { self.stop() }
  }
}

extension LoopbackServer {
  /// `waitForRequests`, awaited off the cooperative pool.
  func requestsArrived(_ count: Int) async -> Bool {
    await blocking { self.waitForRequests(count) }
  }

  /// `waitForClientClose`, awaited off the cooperative pool.
  func clientClosed(_ count: Int = 1) async -> Bool {
    await blocking { self.waitForClientClose(count) }
  }
}
