import Foundation
import Synchronization

/// Gets the thumbnails of images for the views: from memory, from the disk cache, or through a
/// child process (`host __image`) that fetches and decodes one image, at most `concurrency` at a
/// time. Never blocks its caller on the network: `status(of:)` answers at once (`loading` when
/// work was started) and `onSettled` is called, on a loader thread, when an image is ready or failed.
public final class ImageLoader: Sendable {
  public enum Status: Sendable, Equatable {
    case loading
    case ready(Thumbnail)
    case failed(String)
  }

  public struct Settings: Sendable {
    /// The host executable: `host-worker __image ...` beside it runs each image (`LeanExecutable`).
    public var executable: String
    public var cache: ImageCache
    /// Images fetched at once.
    public var concurrency = 4
    /// A download's time; the child is killed 5 s after it.
    public var timeout: Duration = .seconds(10)
    public var maxBytes = ImageSource.defaultMaxBytes
    /// The size thumbnails are made at; views scale them down further.
    public var thumbnailSize = 128

    public init(executable: String, cache: ImageCache) {
      self.executable = executable
      self.cache = cache
    }
  }

  private struct Books {
    var known: [String: Status] = [:]
    var waiting: [String] = []
    var running = 0
    var closed = false
  }

  public let settings: Settings
  private let books = Mutex(Books())
  private let onSettled: @Sendable (String) -> Void
  /// Thumbnails kept in memory at most; past it the oldest answers are forgotten (a later view
  /// reads them from the disk cache again).
  private static let memoryLimit = 512

  public init(settings: Settings, onSettled: @escaping @Sendable (String) -> Void) {
    self.settings = settings
    self.onSettled = onSettled
    _ = settings.cache.prepare()
  }

  /// What is known of `url`'s thumbnail now; starts fetching it when nothing is.
  public func status(of url: String) -> Status {
    if let known = books.withLock({ $0.known[url] }) { return known }
    // The disk cache is read on the caller's thread: a small file, no network.
    if let cached = settings.cache.thumbnail(of: url) {
      books.withLock { $0.known[url] = .ready(cached) }
      return .ready(cached)
    }
    let start = books.withLock { books -> Bool in
      guard books.known[url] == nil, !books.closed else { return false }
      books.known[url] = .loading
      books.waiting.append(url)
      guard books.running < settings.concurrency else { return false }
      books.running += 1
      return true
    }
    if start { startWorker() }
    return .loading
  }

  /// Stops starting downloads; those running finish (each within its deadline).
  public func close() { books.withLock { $0.closed = true } }

  private func startWorker() {
    // The thread holds the loader until the queue is empty: the loader owns no thread itself.
    let thread = Thread { [self] in
      while let url = nextURL() {
        let status = load(url)
        books.withLock { books in
          if books.known.count > Self.memoryLimit {
            books.known = books.known.filter { if case .loading = $0.value { true } else { false } }
          }
          books.known[url] = status
        }
        onSettled(url)
      }
    }
    thread.name = "featurehost-images"
    thread.start()
  }

  private func nextURL() -> String? {
    books.withLock { books in
      guard !books.closed, !books.waiting.isEmpty else {
        books.running -= 1
        return nil
      }
      return books.waiting.removeFirst()
    }
  }

  /// Runs the child for `url` and reads what it made.
  private func load(_ url: String) -> Status {
    let cache = settings.cache
    let milliseconds = settings.timeout.milliseconds
    var child = ChildProcess(
      LeanExecutable.beside(settings.executable),
      arguments: [
        ImageChild.command, url, cache.originalPath(of: url), cache.thumbnailPath(of: url),
        String(settings.thumbnailSize), String(settings.thumbnailSize), String(milliseconds),
        String(settings.maxBytes),
      ], environment: HostChild.tied(ChildProcess.currentEnvironment))
    child.standardError = .discard
    let result: ChildResult
    do {
      result = try child.run(timeout: settings.timeout + .seconds(5))
    } catch {
      return .failed("cannot start the image reader: \(error)")
    }
    switch result.termination {
    case .exited(0):
      defer { cache.evict() }
      return cache.thumbnail(of: url).map(Status.ready) ?? .failed("the thumbnail was not written")
    case .exited(2):
      let line = result.outputText.split(separator: "\n").first.map(String.init) ?? "not decoded"
      return .failed(String(line.prefix(120)))
    case .timedOut:
      return .failed("no image within \(milliseconds / 1000) s")
    case .signalled(let signal):
      return .failed("the image reader crashed (signal \(signal))")
    case .exited(let status):
      return .failed("the image reader failed (status \(status))")
    }
  }
}

extension Duration {
  var milliseconds: Int {
    let (seconds, attoseconds) = components
    return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
  }
}
