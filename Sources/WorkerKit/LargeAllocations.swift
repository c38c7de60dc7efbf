/// How this process's allocator treats large buffers.
public enum LargeAllocations {
  /// Allocations from this size up get pages of their own.
  public static let threshold: Int32 = 1 << 20

  /// Makes every allocation of `threshold` bytes or more get pages of its own, given back to the
  /// system when freed. glibc's default raises that threshold to the size of the last such
  /// buffer freed (up to 32 MB), after which a state's JSON (megabytes, briefly) is carved from
  /// the heap and its pages stay counted long after: a session of 100,000 URLs peaked ~10 MB higher.
  /// Call once, at start, before other threads exist.
  public static func returnToSystemWhenFreed() {
    _ = GNUExtensions.mallopt?(GNUExtensions.mmapThreshold, threshold)
  }
}
