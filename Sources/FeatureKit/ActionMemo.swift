#if canImport(Glibc)
  import Glibc
#endif

/// Remembers recently decoded actions by their exact JSON bytes, so a repeated action (`increment`,
/// a tick) skips parsing and Codable decoding, which cost far more than a typical reducer.
///
/// Sound because decoding is a pure function of the bytes. Small and fixed: 64 slots, actions of at
/// most 256 bytes, one entry per slot (a newer action with the same hash slot replaces the older).
struct ActionMemo<Action> {
  struct Entry {
    var bytes: [UInt8]
    var hash: UInt64
    var type: String
    var action: Action
  }

  static var maximumLength: Int { 256 }
  private static var slotCount: Int { 64 }

  private var slots: [Entry?] = Array(repeating: nil, count: 64)

  /// The hash and length of a NUL-terminated action, or nil if it is too long to remember.
  static func key(_ json: UnsafePointer<CChar>) -> (hash: UInt64, length: Int)? {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    var length = 0
    while json[length] != 0 {
      guard length < maximumLength else { return nil }
      hash = (hash ^ UInt64(UInt8(bitPattern: json[length]))) &* 0x100_0000_01b3
      length += 1
    }
    return (hash, length)
  }

  func lookup(_ json: UnsafePointer<CChar>, hash: UInt64, length: Int) -> Entry? {
    guard let entry = slots[Int(hash % UInt64(Self.slotCount))], entry.hash == hash, entry.bytes.count == length
    else { return nil }
    let same = entry.bytes.withUnsafeBytes { stored in
      guard let base = stored.baseAddress else { return length == 0 }
      return memcmp(base, json, length) == 0
    }
    return same ? entry : nil
  }

  mutating func store(_ json: UnsafePointer<CChar>, hash: UInt64, length: Int, type: String, action: Action) {
    let bytes = UnsafeRawBufferPointer(start: json, count: length)
    slots[Int(hash % UInt64(Self.slotCount))] = Entry(bytes: Array(bytes), hash: hash, type: type, action: action)
  }
}
