#if canImport(Glibc)
  import Glibc
#endif

/// A C string the instance owns and hands out until it is replaced: the ABI's "owned by the
/// instance, valid until the next call" rule.
struct OwnedCString: ~Copyable {
  private var pointer: UnsafeMutablePointer<CChar>?
  /// The bytes `pointer` points into when they were adopted (`set(adopting:)`) rather than
  /// copied: kept, never mutated, until replaced, so their storage stays where it is.
  private var adopted: [UInt8] = []

  init() { pointer = nil }

  /// Replaces the held string and returns a pointer to the new one.
  mutating func set(_ text: String) -> UnsafePointer<CChar>? {
    release()
    pointer = strdup(text)
    return UnsafePointer(pointer)
  }

  /// Replaces the held string with `bytes` (UTF-8 without a NUL), adopted rather than copied
  /// (a state's JSON is as large as the state: not held twice), and returns a pointer to it.
  mutating func set(adopting bytes: consuming [UInt8]) -> UnsafePointer<CChar>? {
    release()
    // Usually within the capacity the encoder reserved: no copy.
    bytes.append(0)
    adopted = consume bytes
    // Read-only access: a mutable one could copy the storage to make it unique.
    pointer = adopted.withUnsafeBytes { raw in
      raw.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).assumingMemoryBound(to: CChar.self) }
    }
    return UnsafePointer(pointer)
  }

  var value: UnsafePointer<CChar>? { UnsafePointer(pointer) }

  /// Lets the held string go before a large one is made: both are never held at once.
  mutating func clear() { release() }

  private mutating func release() {
    if adopted.isEmpty { free(pointer) } else { adopted = [] }
    pointer = nil
  }

  deinit { if adopted.isEmpty { free(pointer) } }
}
