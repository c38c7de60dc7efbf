import HostKit

/// Pictures the image tests make themselves, and files of them.
enum TestImages {
  /// A gradient: red grows to the right, green downwards, blue constant.
  static func gradient(width: Int, height: Int) -> [UInt8] {
    var rgb = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let index = (y * width + x) * 3
        rgb[index] = UInt8(x * 255 / max(1, width - 1))
        rgb[index + 1] = UInt8(y * 255 / max(1, height - 1))
        rgb[index + 2] = 96
      }
    }
    return rgb
  }

  static func solid(width: Int, height: Int, _ red: UInt8, _ green: UInt8, _ blue: UInt8) -> [UInt8] {
    Array([[UInt8]](repeating: [red, green, blue], count: width * height).joined())
  }

  static func png(width: Int, height: Int) throws -> [UInt8] {
    guard
      let bytes = ImageEncoder.encode(gradient(width: width, height: height), width: width, height: height, as: .png)
    else { throw FixtureFailure("libpng cannot encode here") }
    return bytes
  }

  static func jpeg(width: Int, height: Int, rgb: [UInt8]? = nil) throws -> [UInt8] {
    let pixels = rgb ?? gradient(width: width, height: height)
    guard let bytes = ImageEncoder.encode(pixels, width: width, height: height, as: .jpeg(quality: 90)) else {
      throw FixtureFailure("libjpeg cannot encode here")
    }
    return bytes
  }

  /// `png` with its IHDR declaring `width` x `height` (CRC fixed): a decompression bomb's header.
  static func pngDeclaring(width: UInt32, height: UInt32) throws -> [UInt8] {
    var bytes = try png(width: 8, height: 8)
    for (offset, value) in [(16, width), (20, height)] {
      for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(index))) }
    }
    let crc = crc32(Array(bytes[12..<29]))
    for index in 0..<4 { bytes[29 + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(index))) }
    return bytes
  }

  /// `jpeg` with its frame header (SOF0) declaring `width` x `height`.
  static func jpegDeclaring(width: UInt16, height: UInt16) throws -> [UInt8] {
    var bytes = try jpeg(width: 16, height: 16)
    guard let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
      throw FixtureFailure("no SOF0 in the JPEG")
    }
    bytes[sof + 5] = UInt8(height >> 8)
    bytes[sof + 6] = UInt8(height & 0xFF)
    bytes[sof + 7] = UInt8(width >> 8)
    bytes[sof + 8] = UInt8(width & 0xFF)
    return bytes
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}
