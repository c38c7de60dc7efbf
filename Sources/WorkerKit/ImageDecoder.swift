import CImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// Decodes JPEG and PNG images to thumbnails with libjpeg and libpng (loaded at first use).
///
/// Run it where a crash costs only the image: the host runs it in a short-lived child
/// (`host __image`); benchmarks and fuzz targets call it directly.
public enum ImageDecoder {
  /// `bytes` (a JPEG or PNG) decoded and scaled down to fit `maxWidth` x `maxHeight`, keeping its
  /// aspect ratio. An image whose header declares more than 4096 x 4096 pixels (or a side over
  /// 16384) is refused before anything is allocated for it.
  public static func thumbnail(_ bytes: [UInt8], maxWidth: Int, maxHeight: Int) -> Result<Thumbnail, ImageFailure> {
    var picture = fhimg_picture()
    var reason = [CChar](repeating: 0, count: 256)
    let status = bytes.withUnsafeBufferPointer { buffer in
      fhimg_thumbnail(
        buffer.baseAddress, buffer.count, Int32(clamping: maxWidth), Int32(clamping: maxHeight), &picture, &reason,
        reason.count)
    }
    defer { fhimg_free(&picture) }
    guard status == Int32(FHIMG_OK), let pixels = picture.pixels else {
      return .failure(ImageFailure(reasonText(reason)))
    }
    let width = Int(picture.width)
    let height = Int(picture.height)
    return .success(
      Thumbnail(width: width, height: height, rgb: Array(UnsafeBufferPointer(start: pixels, count: width * height * 3)))
    )
  }

  /// The size the header of `bytes` declares, read without decoding; a failure names why.
  public static func declaredSize(_ bytes: [UInt8]) -> Result<(width: Int, height: Int), ImageFailure> {
    var width: Int32 = 0
    var height: Int32 = 0
    var reason = [CChar](repeating: 0, count: 256)
    let status = bytes.withUnsafeBufferPointer {
      fhimg_header_size($0.baseAddress, $0.count, &width, &height, &reason, reason.count)
    }
    guard status == Int32(FHIMG_OK) else { return .failure(ImageFailure(reasonText(reason))) }
    return .success((Int(width), Int(height)))
  }

  package static func reasonText(_ reason: [CChar]) -> String {
    String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// Why an image is shown as its alternative line: a short reason ("HTTP 404", "a GIF (...)").
public struct ImageFailure: Error, Sendable, Equatable, CustomStringConvertible {
  public let reason: String
  public init(_ reason: String) { self.reason = reason }
  public var description: String { reason }
}

/// Encodes pictures, for tests and benchmarks that need JPEG and PNG files to decode.
public enum ImageEncoder {
  public enum Format: Sendable {
    case jpeg(quality: Int)
    case png
  }

  /// `width` x `height` RGB pixels as a file of `format`; nil when the library is missing.
  public static func encode(_ rgb: [UInt8], width: Int, height: Int, as format: Format) -> [UInt8]? {
    precondition(rgb.count == width * height * 3, "width x height RGB pixels")
    var bytes: UnsafeMutablePointer<UInt8>?
    var count = 0
    let status = rgb.withUnsafeBufferPointer { pixels in
      switch format {
      case .jpeg(let quality):
        fhimg_encode_jpeg(pixels.baseAddress, Int32(width), Int32(height), Int32(quality), &bytes, &count)
      case .png: fhimg_encode_png(pixels.baseAddress, Int32(width), Int32(height), &bytes, &count)
      }
    }
    defer { free(bytes) }
    guard status == Int32(FHIMG_OK), let bytes else { return nil }
    return Array(UnsafeBufferPointer(start: bytes, count: count))
  }
}
