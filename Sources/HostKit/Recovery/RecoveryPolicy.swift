import Foundation

/// Decides whether a store restarts a lost instance or closes the feature: a feature that crashes
/// `maxCrashes` times within `window` is closed, so a crash on every restore cannot loop.
///
/// A value owned by one store (its crash times are its own); the clock is injectable for tests.
public struct RecoveryPolicy: Sendable {
  /// What to do after a crash.
  public enum Decision: Sendable, Equatable {
    /// Make a new instance and restore the last recorded state.
    case restart
    /// Close the feature: it crashed `crashes` times within the window.
    case close(crashes: Int)
  }

  /// Crashes within `window` that close the feature.
  public var maxCrashes: Int
  public var window: Duration
  /// Monotonic time, in any unit as a `Duration` since any fixed point.
  private let now: @Sendable () -> Duration
  private var crashes: [Duration] = []

  /// The host's rule: 3 crashes within 60 s close the feature.
  public static let standard = RecoveryPolicy()

  public init(
    maxCrashes: Int = 3, window: Duration = .seconds(60),
    now: @escaping @Sendable () -> Duration = RecoveryPolicy.uptime
  ) {
    self.maxCrashes = max(1, maxCrashes)
    self.window = window
    self.now = now
  }

  /// Counts a crash now and says what follows it.
  public mutating func crashed() -> Decision {
    let time = now()
    crashes.removeAll { time - $0 >= window }
    crashes.append(time)
    return crashes.count >= maxCrashes ? .close(crashes: crashes.count) : .restart
  }

  /// Time since boot, which never goes back.
  @Sendable public static func uptime() -> Duration {
    .nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds))
  }
}
