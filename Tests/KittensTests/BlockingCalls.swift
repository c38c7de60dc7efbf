import FeatureTesting
import HostKit

extension Store {
  /// `waitUntilSettled`, awaited off the cooperative pool.
  func settled(within timeout: Duration = .seconds(10)) async -> SettleResult {
    await offPool { self.waitUntilSettled(timeout: timeout) }
  }

  /// `stop`, awaited off the cooperative pool (stopping waits for the plugin's effects to end).
  @discardableResult
  func stopped() async -> StopReport {
    await offPool { self.stop() }
  }
}

extension LoopbackServer {
  /// `waitForRequests`, awaited off the cooperative pool.
  func requestsArrived(_ count: Int) async -> Bool {
    await offPool { self.waitForRequests(count) }
  }

  /// `waitForClientClose`, awaited off the cooperative pool.
  func clientClosed(_ count: Int = 1) async -> Bool {
    await offPool { self.waitForClientClose(count) }
  }
}
