import FeatureABI

/// A zeroed copy of a C struct read within the `struct_size` its sender declared.
///
/// `feature_abi.h` lets structs grow at their end: a field the sender's size does not reach is
/// absent and reads as zero/NULL here; bytes past this host's layout are never read.
struct DeclaredStruct<Layout> {
  /// The copy: min(declared, sizeof(Layout)) bytes of the sender's struct, the rest zero.
  let value: Layout
  /// The sender's `struct_size`.
  let declaredSize: UInt32

  /// Reads the struct at `pointer`; `empty` is a zeroed `Layout` (a C struct's `init()`).
  init(reading pointer: UnsafeRawPointer, empty: Layout) {
    var copy = empty
    declaredSize = withUnsafeMutableBytes(of: &copy) { fh_struct_read(pointer, $0.baseAddress, $0.count) }
    value = copy
  }

  /// Whether the sender's struct reaches the end of `field` (`size` bytes; a pointer by default).
  func declares(_ field: PartialKeyPath<Layout>, size: Int = MemoryLayout<UnsafeRawPointer>.size) -> Bool {
    guard let offset = MemoryLayout<Layout>.offset(of: field) else { return false }
    return offset + size <= Int(declaredSize)
  }
}
