import HostKit
import Testing

/// Decoding with libpng and libjpeg: thumbnails fit the box and keep their colours; damaged,
/// foreign and oversized images are refused with a short reason, the oversized ones from their
/// header alone.
@Suite("image decoding")
struct ImageDecoderTests {
  @Test func aPNGSmallerThanTheBoxKeepsItsSizeAndPixels() throws {
    let thumbnail = try ImageDecoder.thumbnail(try TestImages.png(width: 40, height: 20), maxWidth: 128, maxHeight: 128)
      .get()
    #expect(thumbnail.width == 40 && thumbnail.height == 20)
    #expect(thumbnail.rgb == TestImages.gradient(width: 40, height: 20))
  }

  @Test func aLargeJPEGIsScaledToFitKeepingItsRatio() throws {
    let rgb = TestImages.solid(width: 1000, height: 800, 200, 30, 60)
    let thumbnail = try ImageDecoder.thumbnail(
      try TestImages.jpeg(width: 1000, height: 800, rgb: rgb), maxWidth: 128, maxHeight: 128
    ).get()
    #expect(thumbnail.width == 128 && thumbnail.height == 102)
    let middle = (51 * 128 + 64) * 3
    let pixel = Array(thumbnail.rgb[middle..<middle + 3]).map(Int.init)
    #expect(abs(pixel[0] - 200) <= 6 && abs(pixel[1] - 30) <= 6 && abs(pixel[2] - 60) <= 6, "\(pixel)")
  }

  struct Refusal: CustomTestStringConvertible, Sendable {
    let id: String
    let bytes: @Sendable () throws -> [UInt8]
    let reason: String
    var testDescription: String { id }
  }

  static let refusals: [Refusal] = [
    Refusal(
      id: "truncated-jpeg", bytes: { Array(try TestImages.jpeg(width: 300, height: 200).prefix(900)) },
      reason: "damaged or truncated JPEG"),
    Refusal(
      id: "truncated-png", bytes: { Array(try TestImages.png(width: 300, height: 200).prefix(400)) },
      reason: "damaged or truncated PNG"),
    Refusal(
      id: "gif", bytes: { Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8) }, reason: "a GIF (only JPEG and PNG are drawn)"),
    Refusal(id: "html", bytes: { Array("<html>404</html>".utf8) }, reason: "text, not an image"),
    Refusal(id: "empty", bytes: { [] }, reason: "no bytes"),
    Refusal(
      id: "png-bomb", bytes: { try TestImages.pngDeclaring(width: 50_000, height: 50_000) },
      reason: "50000x50000 pixels is more than this host decodes"),
    Refusal(
      id: "jpeg-bomb", bytes: { try TestImages.jpegDeclaring(width: 50_000, height: 50_000) },
      reason: "50000x50000 pixels is more than this host decodes"),
    Refusal(
      id: "jpeg-over-the-pixel-budget", bytes: { try TestImages.jpegDeclaring(width: 8000, height: 8000) },
      reason: "8000x8000 pixels is more than this host decodes"),
  ]

  @Test(arguments: refusals)
  func isRefusedWithAReason(_ refusal: Refusal) throws {
    let result = ImageDecoder.thumbnail(try refusal.bytes(), maxWidth: 64, maxHeight: 64)
    guard case .failure(let failure) = result else {
      Issue.record("decoded \(refusal.id)")
      return
    }
    #expect(failure.reason.hasPrefix(refusal.reason), "\(failure.reason)")
  }

  @Test func theHeaderAloneGivesABombsDeclaredSize() throws {
    let declared = ImageDecoder.declaredSize(try TestImages.jpegDeclaring(width: 50_000, height: 40_000))
    guard case .failure(let failure) = declared else {
      Issue.record("a 50000x40000 JPEG was accepted")
      return
    }
    #expect(failure.reason.contains("50000x40000"))
    #expect(try ImageDecoder.declaredSize(try TestImages.png(width: 33, height: 7)).get() == (33, 7))
  }
}
