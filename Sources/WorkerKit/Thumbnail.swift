/// A small RGB picture, rows top to bottom, 3 bytes a pixel: what the line renderer draws.
public struct Thumbnail: Sendable, Equatable {
  public let width: Int
  public let height: Int
  public let rgb: [UInt8]

  public init(width: Int, height: Int, rgb: [UInt8]) {
    precondition(width > 0 && height > 0 && rgb.count == width * height * 3, "an RGB picture of width x height")
    self.width = width
    self.height = height
    self.rgb = rgb
  }

  /// The bytes of the thumbnail file in the image cache: `FHTHUMB1`, width and height (UInt16,
  /// little-endian), then the pixels.
  public var fileBytes: [UInt8] {
    Self.magic + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)] + rgb
  }

  /// Reads a thumbnail file; nil when it is not one (a torn or foreign file is fetched again).
  public init?(fileBytes bytes: [UInt8]) {
    guard bytes.count > 12, Array(bytes[0..<8]) == Self.magic else { return nil }
    let width = Int(bytes[8]) | Int(bytes[9]) << 8
    let height = Int(bytes[10]) | Int(bytes[11]) << 8
    guard width > 0, height > 0, bytes.count == 12 + width * height * 3 else { return nil }
    self.init(width: width, height: height, rgb: Array(bytes[12...]))
  }

  private static let magic: [UInt8] = Array("FHTHUMB1".utf8)
}
