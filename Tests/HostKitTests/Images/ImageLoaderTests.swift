import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The loader fetches over loopback HTTP and from files through `host __image` children, keeps
/// thumbnails in the disk cache, and turns every bad answer into a short reason.
@Suite("image loading")
struct ImageLoaderTests {
  /// A loader on a fresh cache folder, and a way to wait for its answers.
  final class Harness: Sendable {
    let settled = DispatchSemaphore(value: 0)
    let loader: ImageLoader
    let folder: String

    init(
      timeout: Duration = .seconds(10), maxBytes: Int = ImageSource.defaultMaxBytes, capacity: Int? = nil,
      folder: String? = nil
    ) throws {
      let folder = try folder ?? FixturePlugin.temporaryFolder() + "/images"
      self.folder = folder
      var settings = ImageLoader.Settings(
        executable: HostProcess.executable,
        cache: ImageCache(folder: folder, capacity: capacity ?? ImageCache.defaultCapacity))
      settings.timeout = timeout
      settings.maxBytes = maxBytes
      let settled = self.settled
      loader = ImageLoader(settings: settings) { _ in settled.signal() }
    }

    /// The status of `url` once it settled (at most 30 s; a stall fails the test).
    func settledStatus(of url: String) -> ImageLoader.Status {
      var status = loader.status(of: url)
      while status == .loading {
        guard settled.wait(timeout: .now() + 30) == .success else { return .failed("the test's wait ran out") }
        status = loader.status(of: url)
      }
      return status
    }
  }

  struct Bad: CustomTestStringConvertible, Sendable {
    let id: String
    let answer: @Sendable () throws -> ImageServer.Answer
    let reason: String
    var testDescription: String { id }
  }

  static let bad: [Bad] = [
    Bad(id: "not-found", answer: { .status(404) }, reason: "HTTP 404"),
    Bad(
      id: "html-instead-of-an-image", answer: { .file(contentType: "text/html", bytes: Array("<html/>".utf8)) },
      reason: "served as 'text/html', not an image"),
    Bad(
      id: "truncated-jpeg",
      answer: {
        .file(contentType: "image/jpeg", bytes: Array(try TestImages.jpeg(width: 200, height: 100).prefix(700)))
      },
      reason: "damaged or truncated JPEG"),
    Bad(
      id: "bomb",
      answer: { .file(contentType: "image/png", bytes: try TestImages.pngDeclaring(width: 50_000, height: 50_000)) },
      reason: "50000x50000 pixels is more than this host decodes"),
    Bad(
      id: "gif", answer: { .file(contentType: "image/gif", bytes: Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)) },
      reason: "a GIF (only JPEG and PNG are drawn)"),
  ]

  @Test func pngAndJPEGOverHTTPBecomeThumbnails() throws {
    let server = try ImageServer([
      "/a.png": .file(contentType: "image/png", bytes: try TestImages.png(width: 300, height: 150)),
      "/b.jpg": .file(contentType: "image/jpeg", bytes: try TestImages.jpeg(width: 100, height: 200)),
    ])
    defer { server.stop() }
    let harness = try Harness()
    guard case .ready(let png) = harness.settledStatus(of: server.url("/a.png")),
      case .ready(let jpeg) = harness.settledStatus(of: server.url("/b.jpg"))
    else {
      Issue.record(
        "not ready: \(harness.loader.status(of: server.url("/a.png"))) \(harness.loader.status(of: server.url("/b.jpg")))"
      )
      return
    }
    #expect(png.width == 128 && png.height == 64)
    #expect(jpeg.width == 64 && jpeg.height == 128)
  }

  @Test(arguments: bad)
  func aBadAnswerIsAShortReason(_ bad: Bad) throws {
    let server = try ImageServer(["/cat": try bad.answer()])
    defer { server.stop() }
    let harness = try Harness()
    let status = harness.settledStatus(of: server.url("/cat"))
    guard case .failed(let reason) = status else {
      Issue.record("\(bad.id): \(status)")
      return
    }
    #expect(reason.hasPrefix(bad.reason), "\(reason)")
  }

  @Test func aSlowServerRunsOutOfTime() throws {
    let server = try ImageServer(["/slow": .hold])
    defer { server.stop() }
    let harness = try Harness(timeout: .seconds(1))
    #expect(harness.settledStatus(of: server.url("/slow")) == .failed("no answer within 1000 ms"))
  }

  @Test func anImageOverTheByteLimitIsCutOff() throws {
    let png = try TestImages.png(width: 200, height: 200)
    #expect(png.count > 200)
    let server = try ImageServer(["/big.png": .file(contentType: "image/png", bytes: png)])
    defer { server.stop() }
    let harness = try Harness(maxBytes: 200)
    let status = harness.settledStatus(of: server.url("/big.png"))
    #expect(status == .failed("larger than 200 bytes"), "\(status == .loading ? "loading" : "not refused")")
  }

  @Test func theDiskCacheAnswersANewLoaderWithoutTheServer() throws {
    let server = try ImageServer([
      "/a.png": .file(contentType: "image/png", bytes: try TestImages.png(width: 30, height: 20))
    ])
    let url = server.url("/a.png")
    let first = try Harness()
    guard case .ready(let thumbnail) = first.settledStatus(of: url) else {
      server.stop()
      Issue.record("not loaded")
      return
    }
    server.stop()
    let second = try Harness(folder: first.folder)
    #expect(second.loader.status(of: url) == .ready(thumbnail))
  }

  @Test func aFileURLIsReadAndNotCopiedIntoTheCache() throws {
    let folder = try FixturePlugin.temporaryFolder()
    let path = "\(folder)/my cat.png"
    #expect(ImageCache.write(try TestImages.png(width: 10, height: 10), to: path))
    let harness = try Harness()
    let url = "file://\(folder)/my%20cat.png"
    guard case .ready(let thumbnail) = harness.settledStatus(of: url) else {
      Issue.record("\(harness.loader.status(of: url))")
      return
    }
    #expect(thumbnail.width == 10)
    let cache = ImageCache(folder: harness.folder)
    #expect(access(cache.originalPath(of: url), F_OK) != 0)
    #expect(access(cache.thumbnailPath(of: url), F_OK) == 0)
  }

  @Test func evictionRemovesTheFilesUsedLongestAgo() throws {
    let folder = try FixturePlugin.temporaryFolder()
    let cache = ImageCache(folder: folder, capacity: 2500)
    for (index, name) in ["old", "middle", "new"].enumerated() {
      let path = "\(folder)/\(name).img"
      #expect(ImageCache.write([UInt8](repeating: 1, count: 1000), to: path))
      var times = [timespec(tv_sec: 1_000_000 + index, tv_nsec: 0), timespec(tv_sec: 1_000_000 + index, tv_nsec: 0)]
      utimensat(AT_FDCWD, path, &times, 0)
    }
    cache.evict()
    #expect(access("\(folder)/old.img", F_OK) != 0)
    #expect(access("\(folder)/middle.img", F_OK) == 0)
    #expect(access("\(folder)/new.img", F_OK) == 0)
  }
}
