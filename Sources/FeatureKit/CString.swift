#if canImport(Glibc)
  import Glibc
#endif

/// A C string the instance owns and hands out until it is replaced: the ABI's "owned by the
/// instance, valid until the next call" rule.
struct OwnedCString: ~Copyable {
  private var pointer: UnsafeMutablePointer<CChar>?
  /// The bytes `pointer` points into when they were shared (`set(sharing:)`) rather than
  /// copied: kept, never mutated, until replaced, so their storage stays where it is.
  private var adopted: [UInt8] = []

  init() { pointer = nil }

  /// Replaces the held string and returns a pointer to the new one.
  mutating func set(_ text: String) -> UnsafePointer<CChar>? {
    release()
    pointer = strdup(text)
    return UnsafePointer(pointer)
  }

  /// Replaces the held string with `bytes`, which end in their NUL, shared rather than copied:
  /// the caller may keep them too (the instance keeps its state's encoding); while this holds
  /// them, a write by the caller goes to a copy (the array's copy on write), so the pointer stays
  /// good until the next `set` or `clear`. Returns a pointer to it.
  mutating func set(sharing bytes: [UInt8]) -> UnsafePointer<CChar>? {
    precondition(bytes.last == 0, "a shared C string ends in its NUL")
    release()
    adopted = bytes
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
