import FeatureABI

/// A zeroed copy of a struct the host hands over (`fh_host`, an extension), read within its
/// `struct_size`.
///
/// The one way FeatureKit reads host structs: a host built with an older, smaller struct leaves
/// the fields it does not declare zero (absent), and bytes past this plugin's layout are never read.
struct HostStruct<Layout> {
  /// min(struct_size, sizeof(Layout)) bytes of the host's struct, the rest zero.
  let value: Layout

  /// Reads the struct at `pointer`, or nil when the pointer is NULL (the host has no such struct);
  /// `empty` is a zeroed `Layout` (a C struct's `init()`).
  init?(reading pointer: UnsafeRawPointer?, empty: Layout) {
    guard let pointer else { return nil }
    var copy = empty
    _ = withUnsafeMutableBytes(of: &copy) { fh_struct_read(pointer, $0.baseAddress, $0.count) }
    value = copy
  }
}
