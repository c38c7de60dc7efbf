import FeatureABI
import FeatureJSON

/// Where and why the host draws a view (`fh.render_options/1`): hints a feature may honour in
/// `render(_:options:)`, never has to.
public struct RenderOptions: Sendable, Equatable {
  /// The width in cells of the terminal the view is drawn on; nil where there is none (a pipe).
  public var columns: Int?
  /// The whole view is asked for (the host's `:view`): show a long list in full rather than a
  /// window of it.
  public var complete: Bool

  public init(columns: Int? = nil, complete: Bool = false) {
    self.columns = columns
    self.complete = complete
  }

  /// The hints in `json`; members it does not know, or of another kind, are ignored (hints only
  /// improve a view `render` already draws).
  init(json: JSONValue) {
    columns = json["columns"]?.intValue.flatMap { (1...100_000).contains($0) ? Int($0) : nil }
    complete = json["complete"]?.boolValue ?? false
  }
}

extension Feature {
  public func render(_ state: State, options: RenderOptions) -> [String] { render(state) }
}

extension FeatureExport {
  /// The plugin extensions every FeatureKit plugin offers, by id (`fh_plugin.get_extension`).
  static func pluginExtension(_ id: UnsafePointer<CChar>?) -> UnsafeRawPointer? {
    guard let id else { return nil }
    if strcmp(id, FH_EXT_RENDER_OPTIONS) == 0 { return UnsafeRawPointer(renderOptions) }
    if offersStructuredView, strcmp(id, FH_EXT_STRUCTURED_VIEW) == 0 {
      return UnsafeRawPointer(structuredViewExtension)
    }
    return nil
  }
}

/// `fh.render_options/1`, static for the process.
private nonisolated(unsafe) let renderOptions: UnsafeMutablePointer<fh_plugin_render_options> = {
  let pointer = UnsafeMutablePointer<fh_plugin_render_options>.allocate(capacity: 1)
  pointer.initialize(
    to: fh_plugin_render_options(
      struct_size: UInt32(MemoryLayout<fh_plugin_render_options>.size), reserved: 0,
      render_with: { pointer, json, out in
        handOutText(pointer, out) { object, text in
          guard let json else { return object.fail(FH_ERR_INTERNAL, "render options JSON is NULL; pass \"{}\"") }
          return object.render(options: json, &text)
        }
      }))
  return pointer
}()
