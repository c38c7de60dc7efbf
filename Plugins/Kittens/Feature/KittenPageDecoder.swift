import FeatureJSON
import Foundation

/// Reads the image URLs out of a body shaped like thecatapi's answer:
/// `[{"id": "...", "url": "...", "width": 1, "height": 1}, ...]`. Only `url` is read.
struct KittenPageDecoder {
  /// The request URL or file the body came from, named in every error.
  let source: String

  func urls(from body: Data) throws(KittenLoadError) -> [String] {
    let parsed = body.withUnsafeBytes { bytes in
      Result { () throws(JSONParseError) -> JSONValue in try JSONValue.parse(bytes: bytes) }
    }
    let value: JSONValue
    switch parsed {
    case .success(let parsedValue): value = parsedValue
    case .failure(let error):
      throw KittenLoadError("invalid JSON from \(source) at byte \(error.offset): \(error.message)")
    }
    guard let images = value.arrayValue else {
      throw KittenLoadError(
        "expected a JSON array of images from \(source), got \(Self.brief(value))")
    }
    var urls: [String] = []
    urls.reserveCapacity(images.count)
    for (index, image) in images.enumerated() {
      guard let members = image.objectValue else {
        throw KittenLoadError(
          "images[\(index)] from \(source) is not an object: \(Self.brief(image))")
      }
      guard let url = members["url"] else {
        throw KittenLoadError("images[\(index)] from \(source) has no url")
      }
      guard let text = url.stringValue else {
        throw KittenLoadError(
          "images[\(index)].url from \(source) is not a string: \(Self.brief(url))")
      }
      urls.append(text)
    }
    return urls
  }

  /// A value as compact JSON, cut short so a reason stays one readable line.
  static func brief(_ value: JSONValue) -> String {
    let text = value.serialized()
    return text.count <= 60 ? text : "\(text.prefix(57))..."
  }
}
