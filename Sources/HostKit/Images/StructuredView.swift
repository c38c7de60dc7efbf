import FeatureJSON

/// A view with images, as a plugin hands it over through `fh.structured_view/1`: lines of text
/// and image items, in display order.
public struct StructuredView: Sendable, Equatable {
  public enum Item: Sendable, Equatable {
    case text(String)
    case image(ImageItem)

    /// The line shown where pictures are not: the text, or the image's alternative text.
    public var line: String {
      switch self {
      case .text(let text): text
      case .image(let image): image.alt
      }
    }
  }

  public var items: [Item]

  public init(items: [Item]) { self.items = items }

  /// The view as plain text, each image as its alternative line: what `render` returns.
  public var text: String { items.map(\.line).joined(separator: "\n") }

  /// Parses the extension's JSON; the error names the offending item and member.
  public static func parse(_ json: String) throws(StructuredViewError) -> StructuredView {
    let value: JSONValue
    do {
      value = try JSONValue.parse(json)
    } catch {
      throw StructuredViewError("is not valid JSON: \(error)")
    }
    guard let list = value["items"]?.arrayValue else {
      throw StructuredViewError("must be a JSON object with an array \"items\"")
    }
    var items: [Item] = []
    items.reserveCapacity(list.count)
    for (index, entry) in list.enumerated() {
      let place = "item \(index + 1)"
      if let text = entry["text"] {
        guard let line = text.stringValue else { throw StructuredViewError("\(place): \"text\" must be a string") }
        guard !line.contains("\n") else { throw StructuredViewError("\(place): \"text\" holds a line feed") }
        items.append(.text(line))
      } else if let image = entry["image"] {
        items.append(.image(try ImageItem(image, place: place)))
      } else {
        throw StructuredViewError("\(place) has neither \"text\" nor \"image\"")
      }
    }
    return StructuredView(items: items)
  }
}

/// An image of a structured view.
public struct ImageItem: Sendable, Hashable {
  public var url: String
  public var alt: String
  /// The preferred size in pixels, when the plugin knows it.
  public var width: Int?
  public var height: Int?

  public init(url: String, alt: String, width: Int? = nil, height: Int? = nil) {
    self.url = url
    self.alt = alt
    self.width = width
    self.height = height
  }

  init(_ value: JSONValue, place: String) throws(StructuredViewError) {
    guard let url = value["url"]?.stringValue, !url.isEmpty else {
      throw StructuredViewError("\(place): the image needs a non-empty string \"url\"")
    }
    guard let alt = value["alt"]?.stringValue else {
      throw StructuredViewError("\(place): the image needs a string \"alt\" (its line where it cannot be drawn)")
    }
    guard !alt.contains("\n") else { throw StructuredViewError("\(place): \"alt\" holds a line feed") }
    self.url = url
    self.alt = alt
    width = try Self.size(value["width"], "width", place)
    height = try Self.size(value["height"], "height", place)
  }

  private static func size(_ value: JSONValue?, _ name: String, _ place: String) throws(StructuredViewError) -> Int? {
    guard let value else { return nil }
    guard let number = value.intValue, number > 0, number <= 1_000_000 else {
      throw StructuredViewError("\(place): \"\(name)\" must be a positive integer (pixels), got \(value.serialized())")
    }
    return Int(number)
  }
}

/// Why a structured view was refused: one line naming the item and member.
public struct StructuredViewError: Error, Sendable, Equatable, CustomStringConvertible {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
