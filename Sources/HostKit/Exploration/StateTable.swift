/// A set of states that keeps each one's 64-bit hash beside it (open addressing, linear
/// probing): a lookup compares hashes and reads a state's bytes only where they match, and
/// growing moves the entries without hashing them again. `Set<String>` compares every state it
/// probes past byte by byte (states of one feature are mostly the same length) and hashes them
/// all again as it grows: a third of an exploring thread's time on the counter, whose every
/// action reaches a state not seen before.
struct StateTable {
  /// Per slot: the hash (0: empty; a hash of 0 is kept as 1) and the state.
  private var hashes: [UInt64]
  private var states: [String]
  private(set) var count = 0

  init() {
    hashes = Array(repeating: 0, count: Self.firstCapacity)
    states = Array(repeating: "", count: Self.firstCapacity)
  }

  private static let firstCapacity = 1024

  func contains(_ state: String) -> Bool {
    let hash = Self.hash(state)
    var slot = Int(truncatingIfNeeded: hash) & (hashes.count - 1)
    while hashes[slot] != 0 {
      if hashes[slot] == hash && states[slot] == state { return true }
      slot = (slot + 1) & (hashes.count - 1)
    }
    return false
  }

  /// Adds `state`; false when it was there already.
  mutating func insert(_ state: String) -> Bool {
    if (count + 1) * 4 > hashes.count * 3 { grow() }
    let hash = Self.hash(state)
    var slot = Int(truncatingIfNeeded: hash) & (hashes.count - 1)
    while hashes[slot] != 0 {
      if hashes[slot] == hash && states[slot] == state { return false }
      slot = (slot + 1) & (hashes.count - 1)
    }
    hashes[slot] = hash
    states[slot] = state
    count += 1
    return true
  }

  /// Takes `state` out; false when it was not there. The entries after it in its run move back
  /// (no tombstones: a lookup still stops at the first empty slot).
  mutating func remove(_ state: String) -> Bool {
    let mask = hashes.count - 1
    let hash = Self.hash(state)
    var slot = Int(truncatingIfNeeded: hash) & mask
    while hashes[slot] != 0 && !(hashes[slot] == hash && states[slot] == state) { slot = (slot + 1) & mask }
    guard hashes[slot] != 0 else { return false }
    var hole = slot
    var next = (hole + 1) & mask
    while hashes[next] != 0 {
      let home = Int(truncatingIfNeeded: hashes[next]) & mask
      // An entry may fill the hole when its home is not between the hole and it (cyclically).
      if (next - home) & mask >= (next - hole) & mask {
        hashes[hole] = hashes[next]
        states[hole] = states[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    hashes[hole] = 0
    states[hole] = ""
    count -= 1
    return true
  }

  mutating func removeAll() {
    for slot in hashes.indices where hashes[slot] != 0 {
      hashes[slot] = 0
      states[slot] = ""
    }
    count = 0
  }

  private mutating func grow() {
    let capacity = hashes.count * 2
    var moved = (hashes: [UInt64](repeating: 0, count: capacity), states: [String](repeating: "", count: capacity))
    for old in hashes.indices where hashes[old] != 0 {
      var slot = Int(truncatingIfNeeded: hashes[old]) & (capacity - 1)
      while moved.hashes[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
      moved.hashes[slot] = hashes[old]
      swap(&moved.states[slot], &states[old])
    }
    (hashes, states) = moved
  }

  /// A 64-bit hash of the state's UTF-8 bytes, eight at a time, never 0. Not seeded: the states
  /// come from the features being explored, not from an adversary.
  static func hash(_ state: String) -> UInt64 {
    var copy = state
    let hash = copy.withUTF8 { bytes -> UInt64 in
      var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
      let raw = UnsafeRawBufferPointer(bytes)
      var index = 0
      while index + 8 <= bytes.count {
        hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        index += 8
      }
      if index < bytes.count {
        var tail: UInt64 = 0
        for byte in bytes[index...].reversed() { tail = tail << 8 | UInt64(byte) }
        hash = mix(hash ^ tail)
      }
      return mix(hash)
    }
    return hash == 0 ? 1 : hash
  }

  /// One round of a 64-bit multiply-xorshift mix (murmur3's finaliser).
  private static func mix(_ value: UInt64) -> UInt64 {
    var value = value
    value ^= value >> 33
    value &*= 0xFF51_AFD7_ED55_8CCD
    value ^= value >> 33
    value &*= 0xC4CE_B9FE_1A85_EC53
    value ^= value >> 33
    return value
  }
}
