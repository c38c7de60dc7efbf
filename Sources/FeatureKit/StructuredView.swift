import FeatureJSON

/// One item of a structured view (`fh.structured_view/1`): a line of text or an image.
public enum ViewItem: Sendable, Equatable {
  case text(String)
  /// An image at `url` (http, https or file), shown as `alt` where the host cannot draw it;
  /// `width` and `height` are its preferred size in pixels, when known.
  case image(url: String, alt: String, width: Int? = nil, height: Int? = nil)

  /// The line a host without pictures shows for this item.
  public var line: String {
    switch self {
    case .text(let text): text
    case .image(_, let alt, _, _): alt
    }
  }

  var json: JSONValue {
    switch self {
    case .text(let text):
      return .object(["text": .string(text)])
    case .image(let url, let alt, let width, let height):
      var image: [String: JSONValue] = ["url": .string(url), "alt": .string(alt)]
      if let width { image["width"] = .number(.int(Int64(width))) }
      if let height { image["height"] = .number(.int(Int64(height))) }
      return .object(["image": .object(image)])
    }
  }
}

/// A feature whose view can carry images. FeatureKit offers it to the host as the plugin
/// extension `fh.structured_view/1`, and derives `render` from it (each image as its `alt`), so
/// the plain text and the structured view never disagree:
///
///     extension GalleryFeature: StructuredViewFeature {
///       func viewItems(_ state: State) -> [ViewItem] {
///         [.text("Gallery")] + state.urls.map { .image(url: $0, alt: $0) }
///       }
///     }
///
/// A feature that keeps its own `render` must return the same lines (validation checks it).
public protocol StructuredViewFeature: Feature {
  /// The view as items, in display order. Runs on the store thread, like `render`.
  func viewItems(_ state: State) -> [ViewItem]
}

extension StructuredViewFeature {
  public func render(_ state: State) -> [String] { viewItems(state).map(\.line) }
}

extension Array where Element == ViewItem {
  /// The structured view as the extension hands it over: `{"items": [...]}`.
  public var structuredViewJSON: String { JSONValue.object(["items": .array(map(\.json))]).serialized() }
}

/// Calls `viewItems` of `feature`, whose state type is known only as `Any` where it is called.
func structuredViewItems<V: StructuredViewFeature>(_ feature: V, state: Any) -> [ViewItem]? {
  (state as? V.State).map(feature.viewItems)
}
