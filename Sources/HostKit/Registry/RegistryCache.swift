import FeatureJSON
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The registry's cache: one JSON file of scans by plugin path, each with the identity of the file
/// scanned and the host that scanned it.
///
/// Written whole to a temporary file that is renamed over the old one, under a lock file, so a
/// reader sees the old file or the new, never half of one, and two hosts writing at once each keep
/// the other's entries. A missing, unreadable or corrupt file reads as empty: everything is
/// scanned again. Writing is best effort: a cache that cannot be written only costs scans.
public struct RegistryCache: Sendable {
  /// What was found in one file, and when it was that file.
  public struct Entry: Sendable, Equatable {
    /// The scanned file's `FileIdentity.key`.
    public var file: String
    /// The version of the host that scanned it.
    public var host: String
    public var scan: PluginScan

    public init(file: String, host: String, scan: PluginScan) {
      self.file = file
      self.host = host
      self.scan = scan
    }
  }

  /// The cache file's format; another format reads as empty.
  static let format: Int64 = 1

  public let path: String

  public init(path: String) { self.path = path }

  /// `$XDG_CACHE_HOME/featurehost/registry.json`, else `$HOME/.cache/featurehost/registry.json`;
  /// nil when neither variable gives an absolute path (no cache, every file is scanned).
  public static func defaultPath(environment: [String: String]) -> String? {
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
      return "\(cache)/featurehost/registry.json"
    }
    if let home = environment["HOME"], home.hasPrefix("/") { return "\(home)/.cache/featurehost/registry.json" }
    return nil
  }

  /// The entries by plugin path; empty when the file is missing, unreadable or corrupt.
  public func entries() -> [String: Entry] {
    guard let bytes = Self.contents(of: path) else { return [:] }
    let value = bytes.withUnsafeBytes { raw in try? JSONValue.parse(bytes: raw) }
    guard let root = value?.objectValue, root["format"]?.intValue == Self.format,
      let entries = root["entries"]?.objectValue
    else { return [:] }
    var result: [String: Entry] = [:]
    for (plugin, entry) in entries {
      guard let file = entry["file"]?.stringValue, let host = entry["host"]?.stringValue,
        let scanned = entry["scan"], let scan = PluginScan(json: scanned)
      else { continue }
      result[plugin] = Entry(file: file, host: host, scan: scan)
    }
    return result
  }

  /// Adds `fresh` to what the file holds now (another host may have written it since it was
  /// read), drops the entries of files that are gone, and replaces the file. Best effort.
  public func merge(_ fresh: [String: Entry]) {
    let folder = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      return
    }
    let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard lock >= 0 else { return }
    defer { close(lock) }
    while flock(lock, LOCK_EX) != 0 {
      guard errno == EINTR else { return }
    }
    var all = entries().filter { access($0.key, F_OK) == 0 }
    all.merge(fresh) { _, new in new }
    let object: [String: JSONValue] = all.mapValues { entry in
      ["file": .string(entry.file), "host": .string(entry.host), "scan": entry.scan.json]
    }
    let text =
      JSONValue.object(["format": JSONValue(integerLiteral: Self.format), "entries": .object(object)])
      .serialized() + "\n"
    // A cache: worth no sync; a failed write leaves the old file, and the next scan writes again.
    RegularFile.place(Array(text.utf8), at: path, replacing: true, syncs: false)
  }

  /// The whole file, or nil.
  private static func contents(of path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: max(Int(info.st_size), 4096))
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { return nil }
      if count == 0 { return bytes }
      bytes += chunk[0..<count]
    }
  }
}
