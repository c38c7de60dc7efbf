#if canImport(Glibc)
  import Glibc
#endif

/// The image cache on disk: fetched images (`KEY.img`) and their thumbnails (`KEY.thumb`) in one
/// folder (mode 0700), at most `capacity` bytes in all; past it, the files used longest ago go.
///
/// Files are written to a temporary name and renamed, so a reader never sees half of one. Any
/// thread; several hosts may share the folder.
public struct ImageCache: Sendable {
  public let folder: String
  public let capacity: Int
  /// 64 MB: a few hundred photos and their thumbnails.
  public static let defaultCapacity = 64 * 1024 * 1024

  public init(folder: String, capacity: Int = defaultCapacity) {
    self.folder = folder
    self.capacity = capacity
  }

  /// `$XDG_CACHE_HOME/featurehost/images`, else `$HOME/.cache/featurehost/images`; nil without either.
  public static func defaultFolder(environment: [String: String]) -> String? {
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return "\(cache)/featurehost/images" }
    if let home = environment["HOME"], home.hasPrefix("/") { return "\(home)/.cache/featurehost/images" }
    return nil
  }

  /// The file names of `url`: a 64-bit FNV-1a hash of it, in hex.
  public func key(of url: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in url.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    let hex = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  public func originalPath(of url: String) -> String { "\(folder)/\(key(of: url)).img" }
  public func thumbnailPath(of url: String) -> String { "\(folder)/\(key(of: url)).thumb" }

  /// Creates the folder (and its parents) if needed.
  public func prepare() -> Bool {
    var path = ""
    for part in folder.split(separator: "/") {
      path += "/" + part
      if mkdir(path, 0o700) != 0 && errno != EEXIST { return false }
    }
    return true
  }

  /// The cached thumbnail of `url`, marked as just used; nil when there is none (or a bad one).
  public func thumbnail(of url: String) -> Thumbnail? {
    let path = thumbnailPath(of: url)
    guard let bytes = Self.read(path, limit: 12 + 3 * 65_535 * 4), let thumbnail = Thumbnail(fileBytes: bytes) else {
      return nil
    }
    utimensat(AT_FDCWD, path, nil, 0)
    return thumbnail
  }

  /// Writes `bytes` to `path` through a temporary file and a rename.
  @discardableResult
  public static func write(_ bytes: [UInt8], to path: String) -> Bool {
    let code = RegularFile.place(bytes, at: path, replacing: true, syncs: false)
    // Callers say why from errno.
    if code != 0 { errno = code }
    return code == 0
  }

  package static func read(_ path: String, limit: Int) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var offset = 0
    while offset < bytes.count {
      let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { return nil }
      offset += got
    }
    return bytes
  }

  /// Removes the files used longest ago until the folder holds at most `capacity` bytes.
  public func evict() {
    guard let directory = opendir(folder) else { return }
    var files: [(path: String, size: Int, used: Int)] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard name.hasSuffix(".img") || name.hasSuffix(".thumb") else { continue }
      var info = stat()
      let path = "\(folder)/\(name)"
      guard stat(path, &info) == 0 else { continue }
      files.append((path, Int(info.st_size), Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)))
    }
    closedir(directory)
    var total = files.reduce(0) { $0 + $1.size }
    guard total > capacity else { return }
    for file in files.sorted(by: { $0.used < $1.used }) where total > capacity {
      if unlink(file.path) == 0 { total -= file.size }
    }
  }
}
