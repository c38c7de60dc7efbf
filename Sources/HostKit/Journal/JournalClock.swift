import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where a journal's times come from: the wall clock in milliseconds since 1970 (UTC).
///
/// The writer reads it once per action line (`"at"`, see `JournalRecord`) and once for the header
/// of a journal it creates. `system` is the real clock; a test passes a clock of its own so that
/// the lines it compares stay exact. Read from the store thread; must not block.
public struct JournalClock: Sendable {
  private let read: @Sendable () -> Int64

  /// A clock that answers `read()`: milliseconds since 1970-01-01T00:00:00Z.
  public init(_ read: @escaping @Sendable () -> Int64) {
    self.read = read
  }

  /// Milliseconds since 1970 (UTC), now.
  public var milliseconds: Int64 { read() }

  /// Now, as a date (what a new journal's header says it was created at).
  public var date: Date { Date(timeIntervalSince1970: Double(read()) / 1000) }

  /// The system's real-time clock (`CLOCK_REALTIME`, read through the vDSO: no system call).
  public static let system = JournalClock {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }

  /// A clock that always says `date`.
  public static func fixed(_ date: Date) -> JournalClock {
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    return JournalClock { milliseconds }
  }
}

/// Action times (`"at"`): milliseconds since the journal header's `created`.
enum ActionTime {
  /// The largest time a journal may hold: JavaScript's largest safe integer (the devtools page
  /// reads it as a number), some 285,000 years.
  static let maximum = 9_007_199_254_740_991

  /// The header's `created` in milliseconds since 1970, as written (second precision when the
  /// host wrote it); nil when it is not an ISO-8601 time this host reads (no times are then written).
  static func origin(of header: JournalHeader) -> Int64? {
    if let seconds = UTCTime.seconds(header.created) { return Int64(seconds) * 1000 }
    guard let date = try? Date(header.created, strategy: .iso8601) else { return nil }
    return Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
  }
}
