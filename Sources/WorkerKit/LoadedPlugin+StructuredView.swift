import FeatureABI

extension LoadedPlugin {
  package typealias RenderStructured =
    @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> fh_status

  /// `render_structured` of the plugin's `fh.structured_view/1`, nil when the plugin does not
  /// offer it (or declares a table too short to hold it).
  package var structuredViewFunction: RenderStructured? {
    guard isLoadedHere, let lookup = functions.get_extension,
      let table = FH_EXT_STRUCTURED_VIEW.withCString({ lookup($0) })
    else { return nil }
    var read = fh_structured_view()
    let declared = fh_struct_read(table, &read, MemoryLayout<fh_structured_view>.size)
    guard declared >= MemoryLayout<fh_structured_view>.size else { return nil }
    return read.render_structured
  }
}
