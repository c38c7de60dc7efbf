/// XXH64 (the xxHash specification's 64-bit hash, seed 0), fed in pieces of any size: tells a
/// plugin's builds apart. Four independent lanes of eight bytes, where FNV-1a was one chain of a
/// multiply a byte: the counter's 3.1 MB in 0.4 ms against 3.4 ms, at every start (`build.hash`).
struct XXH64 {
  private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
  private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
  private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
  private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
  private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

  private var lanes = (prime1 &+ prime2, prime2, UInt64(0), 0 &- prime1)
  private var length = 0
  /// The last bytes fed that do not fill a stripe of 32 yet.
  private var pending = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
  private var pendingCount = 0

  private static func round(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
    rotate(accumulator &+ lane &* prime2, 31) &* prime1
  }

  private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
    (value << bits) | (value >> (64 - bits))
  }

  private mutating func stripe(_ bytes: UnsafeRawPointer) {
    lanes.0 = Self.round(lanes.0, UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
    lanes.1 = Self.round(lanes.1, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    lanes.2 = Self.round(lanes.2, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
    lanes.3 = Self.round(lanes.3, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
  }

  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard var next = bytes.baseAddress, !bytes.isEmpty else { return }
    length += bytes.count
    var left = bytes.count
    if pendingCount > 0 {
      let taken = min(32 - pendingCount, left)
      withUnsafeMutableBytes(of: &pending) { ($0.baseAddress! + pendingCount).copyMemory(from: next, byteCount: taken) }
      pendingCount += taken
      next += taken
      left -= taken
      guard pendingCount == 32 else { return }
      withUnsafeBytes(of: pending) { stripe($0.baseAddress!) }
      pendingCount = 0
    }
    while left >= 32 {
      stripe(next)
      next += 32
      left -= 32
    }
    if left > 0 {
      withUnsafeMutableBytes(of: &pending) { $0.baseAddress!.copyMemory(from: next, byteCount: left) }
      pendingCount = left
    }
  }

  func digest() -> UInt64 {
    var hash: UInt64
    if length >= 32 {
      hash = Self.rotate(lanes.0, 1) &+ Self.rotate(lanes.1, 7) &+ Self.rotate(lanes.2, 12) &+ Self.rotate(lanes.3, 18)
      for lane in [lanes.0, lanes.1, lanes.2, lanes.3] {
        hash = (hash ^ Self.round(0, lane)) &* Self.prime1 &+ Self.prime4
      }
    } else {
      hash = Self.prime5
    }
    hash &+= UInt64(length)
    withUnsafeBytes(of: pending) { raw in
      var offset = 0
      while offset + 8 <= pendingCount {
        let lane = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        hash = Self.rotate(hash ^ Self.round(0, lane), 27) &* Self.prime1 &+ Self.prime4
        offset += 8
      }
      if offset + 4 <= pendingCount {
        let lane = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        hash = Self.rotate(hash ^ (lane &* Self.prime1), 23) &* Self.prime2 &+ Self.prime3
        offset += 4
      }
      while offset < pendingCount {
        hash = Self.rotate(hash ^ (UInt64(raw[offset]) &* Self.prime5), 11) &* Self.prime1
        offset += 1
      }
    }
    hash ^= hash >> 33
    hash &*= Self.prime2
    hash ^= hash >> 29
    hash &*= Self.prime3
    hash ^= hash >> 32
    return hash
  }
}
