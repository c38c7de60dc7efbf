import CImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// Reads an image's bytes from its URL: http and https through libcurl, file from the disk.
/// Every way is bounded: at most `maxBytes`, within `timeoutMilliseconds` for a download.
public struct ImageSource: Sendable {
  /// 5 MB: a photo a web API serves fits, a stream that does not end is cut off.
  public static let defaultMaxBytes = 5 * 1024 * 1024
  public var maxBytes = defaultMaxBytes
  public var timeoutMilliseconds = 10_000

  public init() {}

  public func bytes(of url: String) -> Result<[UInt8], ImageFailure> {
    let lower = url.lowercased()
    if lower.hasPrefix("file://") { return file(String(url.dropFirst("file://".count))) }
    guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
      let scheme = url.prefix { $0 != ":" }
      return .failure(ImageFailure("'\(scheme.prefix(20))' URLs are not fetched (http, https and file are)"))
    }
    var bytes: UnsafeMutablePointer<UInt8>?
    var count = 0
    var reason = [CChar](repeating: 0, count: 256)
    let status = fhimg_fetch(url, maxBytes, timeoutMilliseconds, &bytes, &count, &reason, reason.count)
    defer { free(bytes) }
    guard status == Int32(FHIMG_OK), let bytes else { return .failure(ImageFailure(ImageDecoder.reasonText(reason))) }
    return .success(Array(UnsafeBufferPointer(start: bytes, count: count)))
  }

  /// A local file, percent-escapes decoded; a regular file of at most `maxBytes`.
  private func file(_ path: String) -> Result<[UInt8], ImageFailure> {
    let path = path.removingPercentEscapes
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return .failure(ImageFailure("cannot open: \(String(cString: strerror(errno)))")) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      return .failure(ImageFailure("not a regular file"))
    }
    guard info.st_size <= maxBytes else { return .failure(ImageFailure("larger than \(maxBytes) bytes")) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var offset = 0
    while offset < bytes.count {
      let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { break }
      offset += got
    }
    return .success(Array(bytes[0..<offset]))
  }
}

extension String {
  /// `%2F` and the like decoded; an invalid escape is kept as it is.
  package var removingPercentEscapes: String {
    var out: [UInt8] = []
    let bytes = Array(utf8)
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
        let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16)
      {
        out.append(value)
        index += 3
      } else {
        out.append(bytes[index])
        index += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
