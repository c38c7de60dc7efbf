#if canImport(Glibc)
  import Glibc
#endif

/// A set of states that keeps each one's 64-bit hash beside where its bytes are (open addressing,
/// linear probing), the bytes themselves one after another in one buffer: a lookup compares
/// hashes and reads a state's bytes only where they match, with no object to reach first, and
/// growing moves the slots without hashing again. `Set<String>` compares every state it probes
/// past byte by byte (states of one feature are mostly the same length), reaching each through
/// its string's object, and hashes them all again as it grows: a third of an exploring thread's
/// time on the counter, whose every action reaches a state not seen before.
struct StateTable {
  /// A slot: the hash (0: empty; a hash of 0 is kept as 1) and where the bytes are in `bytes`.
  private struct Slot {
    var hash: UInt64 = 0
    var offset: UInt32 = 0
    var count: UInt32 = 0
  }

  /// Empty until the first insert (a cache made and never used costs nothing), then a power of two.
  private var slots: [Slot] = []
  /// The states' UTF-8 bytes; a removed state's stay until `removeAll`.
  private var bytes: [UInt8] = []
  private(set) var count = 0

  private static let firstCapacity = 64

  func contains(_ state: String) -> Bool {
    guard count > 0 else { return false }
    var state = state
    return state.withUTF8 { utf8 in find(utf8, hash: Self.hash(utf8)).found }
  }

  /// Adds `state`; false when it was there already.
  mutating func insert(_ state: String) -> Bool {
    var state = state
    return state.withUTF8 { utf8 in
      if (count + 1) * 4 > slots.count * 3 { grow() }
      // Offsets are 32-bit: a table past 4 GB of states starts again (forgetting costs only time).
      if bytes.count + utf8.count > Int(UInt32.max) { removeAll() }
      let hash = Self.hash(utf8)
      let (slot, found) = find(utf8, hash: hash)
      guard !found else { return false }
      slots[slot] = Slot(hash: hash, offset: UInt32(bytes.count), count: UInt32(utf8.count))
      bytes.append(contentsOf: utf8)
      count += 1
      return true
    }
  }

  /// Takes `state` out; false when it was not there. The slots after it in its run move back
  /// (no tombstones: a lookup still stops at the first empty slot).
  mutating func remove(_ state: String) -> Bool {
    guard count > 0 else { return false }
    var state = state
    let (start, found) = state.withUTF8 { utf8 in find(utf8, hash: Self.hash(utf8)) }
    guard found else { return false }
    let mask = slots.count - 1
    var hole = start
    var next = (hole + 1) & mask
    while slots[next].hash != 0 {
      let home = Int(truncatingIfNeeded: slots[next].hash) & mask
      // A slot may fill the hole when its home is not between the hole and it (cyclically).
      if (next - home) & mask >= (next - hole) & mask {
        slots[hole] = slots[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    slots[hole] = Slot()
    count -= 1
    return true
  }

  /// Empties it, keeping its capacity.
  mutating func removeAll() {
    for index in slots.indices { slots[index] = Slot() }
    bytes.removeAll(keepingCapacity: true)
    count = 0
  }

  /// The slot holding `utf8` (found), or the empty slot where it would go.
  private func find(_ utf8: UnsafeBufferPointer<UInt8>, hash: UInt64) -> (slot: Int, found: Bool) {
    let mask = slots.count - 1
    var index = Int(truncatingIfNeeded: hash) & mask
    while true {
      let slot = slots[index]
      if slot.hash == 0 { return (index, false) }
      if slot.hash == hash, Int(slot.count) == utf8.count, equal(utf8, at: Int(slot.offset)) {
        return (index, true)
      }
      index = (index + 1) & mask
    }
  }

  private func equal(_ utf8: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
    guard let base = utf8.baseAddress else { return true }
    return bytes.withUnsafeBufferPointer { stored in memcmp(base, stored.baseAddress! + offset, utf8.count) == 0 }
  }

  private mutating func grow() {
    let capacity = max(Self.firstCapacity, slots.count * 2)
    var moved = [Slot](repeating: Slot(), count: capacity)
    for slot in slots where slot.hash != 0 {
      var index = Int(truncatingIfNeeded: slot.hash) & (capacity - 1)
      while moved[index].hash != 0 { index = (index + 1) & (capacity - 1) }
      moved[index] = slot
    }
    slots = moved
  }

  /// A 64-bit hash of a state's UTF-8 bytes, eight at a time, never 0. Not seeded: the states
  /// come from the features being explored, not from an adversary.
  static func hash(_ state: String) -> UInt64 {
    var state = state
    return state.withUTF8 { hash($0) }
  }

  private static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(utf8.count)
    let raw = UnsafeRawBufferPointer(utf8)
    var index = 0
    while index + 8 <= utf8.count {
      hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      index += 8
    }
    if index < utf8.count {
      var tail: UInt64 = 0
      for byte in utf8[index...].reversed() { tail = tail << 8 | UInt64(byte) }
      hash = mix(hash ^ tail)
    }
    hash = mix(hash)
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
