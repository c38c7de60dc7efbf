#if canImport(Glibc)
  import Glibc
#endif

/// A C string the instance owns and hands out until it is replaced: the ABI's "owned by the
/// instance, valid until the next call" rule.
struct OwnedCString: ~Copyable {
  private var pointer: UnsafeMutablePointer<CChar>?

  init() { pointer = nil }

  /// Replaces the held string and returns a pointer to the new one.
  mutating func set(_ text: String) -> UnsafePointer<CChar>? {
    free(pointer)
    pointer = strdup(text)
    return UnsafePointer(pointer)
  }

  /// Replaces the held string with `bytes` (UTF-8 without a NUL) and returns a pointer to it.
  mutating func set(bytes: [UInt8]) -> UnsafePointer<CChar>? {
    free(pointer)
    pointer = bytes.withUnsafeBufferPointer { bytes in
      guard let copy = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else { return nil }
      if let base = bytes.baseAddress { memcpy(copy, base, bytes.count) }
      copy[bytes.count] = 0
      return copy
    }
    return UnsafePointer(pointer)
  }

  var value: UnsafePointer<CChar>? { UnsafePointer(pointer) }

  deinit { free(pointer) }
}
