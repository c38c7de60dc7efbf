/// A random number generator that gives the same numbers for the same seed (SplitMix64), so an
/// exploration run can be repeated from the seed it printed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// The seed of run `run` (from 0) of an exploration seeded `seed`: runs differ, and each can be
  /// run alone.
  public static func seed(_ seed: UInt64, run: Int) -> UInt64 {
    var generator = SeededRandom(seed: seed ^ (UInt64(run) &* 0xD6E8_FEB8_6659_FD93))
    return generator.next()
  }
}
