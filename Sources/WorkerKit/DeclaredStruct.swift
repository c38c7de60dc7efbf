import FeatureABI

/// A zeroed copy of a C struct read within the `struct_size` its sender declared.
///
/// `feature_abi.h` lets structs grow at their end: a field the sender's size does not reach is
/// absent and reads as zero/NULL here; bytes past this host's layout are never read.
package struct DeclaredStruct<Layout> {
  /// The copy: min(declared, sizeof(Layout)) bytes of the sender's struct, the rest zero.
  package let value: Layout
  /// The sender's `struct_size`.
  package let declaredSize: UInt32

  /// Reads the struct at `pointer`; `empty` is a zeroed `Layout` (a C struct's `init()`).
  package init(reading pointer: UnsafeRawPointer, empty: Layout) {
    var copy = empty
    declaredSize = withUnsafeMutableBytes(of: &copy) { fh_struct_read(pointer, $0.baseAddress, $0.count) }
    value = copy
  }

  /// Whether the sender's struct reaches the end of `field` (`size` bytes; a pointer by default).
  package func declares(_ field: PartialKeyPath<Layout>, size: Int = MemoryLayout<UnsafeRawPointer>.size) -> Bool {
    guard let offset = MemoryLayout<Layout>.offset(of: field) else { return false }
    return offset + size <= Int(declaredSize)
  }
}

extension DeclaredStruct where Layout == fh_plugin {
  /// The descriptor's required fields, in layout order: the first one its size does not reach,
  /// and the first one that is NULL (nil when every one is there).
  package func missingRequiredField() -> (cut: String?, null: String?) {
    let plugin = value
    let required: [(name: String, field: PartialKeyPath<fh_plugin>, present: Bool)] = [
      ("manifest_json", \.manifest_json, plugin.manifest_json != nil), ("create", \.create, plugin.create != nil),
      ("start", \.start, plugin.start != nil), ("dispatch", \.dispatch, plugin.dispatch != nil),
      ("reduce", \.reduce, plugin.reduce != nil), ("snapshot", \.snapshot, plugin.snapshot != nil),
      ("restore", \.restore, plugin.restore != nil), ("render", \.render, plugin.render != nil),
      ("stop", \.stop, plugin.stop != nil), ("destroy", \.destroy, plugin.destroy != nil),
      ("last_error", \.last_error, plugin.last_error != nil),
    ]
    return (
      required.first { !declares($0.field) }?.name, required.first { !$0.present }?.name
    )
  }
}
