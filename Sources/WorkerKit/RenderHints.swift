/// What the host knows about where and why a view is drawn, for plugins that offer
/// `fh.render_options/1`: the terminal's width, and whether the whole view is asked for.
public struct RenderHints: Sendable, Equatable {
  /// The width in cells of the terminal the view is drawn on; nil where there is none (a pipe).
  public var columns: Int?
  /// The whole view (`:view`): no window or summary in place of a long list.
  public var complete: Bool

  public init(columns: Int? = nil, complete: Bool = false) {
    self.columns = columns.map { max(1, $0) }
    self.complete = complete
  }

  /// No hint: the plugin's plain `render` draws the view.
  public var isEmpty: Bool { columns == nil && !complete }

  /// The hints as `render_with` takes them, e.g. `{"columns":80,"complete":true}`.
  public var json: String {
    var members: [String] = []
    if let columns { members.append("\"columns\":\(columns)") }
    if complete { members.append("\"complete\":true") }
    return "{" + members.joined(separator: ",") + "}"
  }
}
