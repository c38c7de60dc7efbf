import Foundation
import HostKit

/// Shared journal test data: a counter header with a fixed creation time, so file contents can be
/// compared exactly.
enum JournalFixtures {
  static let header = JournalHeader(
    feature: "counter", featureVersion: "1.0.0", created: Date(timeIntervalSince1970: 1_764_450_000)
  )
  static let headerLine =
    #"{"created":"2025-11-29T21:00:00Z","feature":"counter","featureVersion":"1.0.0","format":1,"host":"0.1.0","journal":"featurehost"}"#
  /// A clock that stands 1.5 s after the header's `created`: every action line it times says
  /// `"at":1500`.
  static let clock = JournalClock.fixed(Date(timeIntervalSince1970: 1_764_450_001.5))
  static let increment = #"{"type":"increment"}"#
  static let decrement = #"{"type":"decrement"}"#
}
