import Foundation
import Testing

@testable import HostKit

@Suite("A build's hash: XXH64")
struct BuildHashTests {
  /// Known answers from the reference implementation (python-xxhash 3, seed 0).
  static let known: [(bytes: [UInt8], hash: UInt64)] = [
    ([], 0xef46_db37_51d8_e999),
    (Array("a".utf8), 0xd24e_c4f1_a98c_6e5b),
    (Array("abc".utf8), 0x44bc_2cf5_ad77_0999),
    (Array("0123456789abcdef0123456789abcdef".utf8), 0x642a_9495_8e71_e6c5),
    (Array("The quick brown fox jumps over the lazy dog".utf8), 0x0b24_2d36_1fda_71bc),
    (Array((0..<3).flatMap { _ in (0...255).map { UInt8($0) } } + Array("xyz".utf8)), 0xe921_a1b4_5bd7_79f8),
  ]

  @Test("each known answer, fed whole and in pieces of 1, 3, 7, 31, 32 and 33 bytes")
  func knownAnswers() {
    for (bytes, expected) in Self.known {
      for piece in [bytes.count, 1, 3, 7, 31, 32, 33] where piece > 0 || bytes.isEmpty {
        var hash = XXH64()
        bytes.withUnsafeBytes { raw in
          var offset = 0
          while offset < raw.count {
            let end = min(offset + piece, raw.count)
            hash.update(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
            offset = end
          }
        }
        #expect(hash.digest() == expected, "\(bytes.count) bytes in pieces of \(piece)")
      }
    }
  }

  @Test("a file's hash and its copy's are the same, labelled xxh64, and change with one byte")
  func fileAndCopy() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("featurehost-hash-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let file = "\(folder)/plugin.so"
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    let hash = try #require(BuildFile.hash(file))
    var whole = XXH64()
    bytes.withUnsafeBytes { whole.update($0) }
    #expect(hash == "xxh64:" + String(whole.digest(), radix: 16).leftPaddedForTest(16))
    #expect(BuildFile.copy(file, to: "\(folder)/copy.so") == hash)
    bytes[150_000] ^= 1
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    #expect(BuildFile.hash(file) != hash)
  }
}

extension String {
  fileprivate func leftPaddedForTest(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
