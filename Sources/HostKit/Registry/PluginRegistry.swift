import Dispatch
import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// The plugins in the search folders, known without running their code in this process: each
/// new or changed file is handed to a scanner (a child process, as the CLI makes it), and what it
/// found is cached, keyed by the file's `FileIdentity` and the host's version.
///
/// A candidate that is not a regular file is rejected without being opened (a FIFO would block);
/// folders and files someone else could change are refused (`PluginTrust`) every time, since a
/// mode change does not change the identity. Duplicate ids: the first found wins.
public struct PluginRegistry: Sendable {
  public var directories: [String]
  /// The cache file; nil scans every file every time.
  public var cache: RegistryCache?
  /// What a cache entry must have been scanned by to be used.
  public var hostVersion: String
  public var scanner: PluginScanner

  public init(directories: [String], cache: RegistryCache?, hostVersion: String, scanner: @escaping PluginScanner) {
    self.directories = directories
    self.cache = cache
    self.hostVersion = hostVersion
    self.scanner = scanner
  }

  /// A candidate file and what is known of it before any scan.
  private enum Candidate {
    case rejected(PluginCatalogue.Rejection)
    case file(path: String, identity: FileIdentity)
  }

  /// The catalogue of the search folders: cached scans where the file is unchanged, fresh scans
  /// (run in parallel) where it is new or changed, which are then added to the cache.
  public func catalogue() -> PluginCatalogue {
    var candidates: [Candidate] = []
    for directory in directories {
      do {
        try PluginTrust.check(directory)
      } catch {
        candidates.append(.rejected(.init(path: directory, reason: error.message, help: error.help)))
        continue
      }
      for path in PluginDiscovery.candidates(in: directory) { candidates.append(Self.inspect(path)) }
    }
    let cached = cache?.entries() ?? [:]
    var scans: [String: PluginScan] = [:]
    var misses: [(path: String, identity: FileIdentity)] = []
    for case .file(let path, let identity) in candidates {
      if let entry = cached[path], entry.file == identity.key, entry.host == hostVersion {
        scans[path] = entry.scan
      } else {
        misses.append((path, identity))
      }
    }
    let fresh = scan(misses.map(\.path))
    if !misses.isEmpty, let cache {
      var entries: [String: RegistryCache.Entry] = [:]
      for (index, miss) in misses.enumerated() {
        entries[miss.path] = RegistryCache.Entry(file: miss.identity.key, host: hostVersion, scan: fresh[index])
        scans[miss.path] = fresh[index]
      }
      cache.merge(entries)
    } else {
      for (index, miss) in misses.enumerated() { scans[miss.path] = fresh[index] }
    }
    var plugins: [PluginRecord] = []
    var rejections: [PluginCatalogue.Rejection] = []
    for candidate in candidates {
      switch candidate {
      case .rejected(let rejection):
        rejections.append(rejection)
      case .file(let path, _):
        switch Self.record(path, scans[path]) {
        case .rejected(let rejection):
          rejections.append(rejection)
        case .found(let record):
          if let first = plugins.first(where: { $0.id == record.id }) {
            rejections.append(
              .init(
                path: path, reason: "duplicate feature id '\(record.id)', already provided by '\(first.path)'",
                help: "the first one found wins; remove one of them or give it another id"))
          } else {
            plugins.append(record)
          }
        }
      }
    }
    return PluginCatalogue(plugins: plugins, rejections: rejections, scanned: misses.map(\.path))
  }

  /// A candidate's identity, or why it is no plugin file, without opening it.
  private static func inspect(_ path: String) -> Candidate {
    var info = stat()
    guard stat(path, &info) == 0 else {
      return .rejected(.init(path: path, reason: "cannot read '\(path)': \(String(cString: strerror(errno)))"))
    }
    let type = info.st_mode & S_IFMT
    guard type == S_IFREG else {
      return .rejected(
        .init(
          path: path, reason: "not a regular file but \(kind(of: type)); it was not opened",
          help: "a plugin is a shared library file; rename or remove '\(path)'"))
    }
    do {
      try PluginTrust.check(path)
    } catch {
      return .rejected(.init(path: path, reason: error.message, help: error.help))
    }
    return .file(path: path, identity: FileIdentity(info))
  }

  private static func kind(of type: mode_t) -> String {
    switch type {
    case S_IFDIR: "a folder"
    case S_IFIFO: "a FIFO (named pipe)"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    default: "a special file"
    }
  }

  /// Runs the scanner on each path, a few at a time.
  private func scan(_ paths: [String]) -> [PluginScan] {
    guard paths.count > 1 else { return paths.map(scanner) }
    // Locked (a pthread mutex), not Mutex: ThreadSanitizer sees its ordering, and took the
    // Mutex's writes from dispatch_apply's threads for a race.
    let results = Locked<[PluginScan?]>(Array(repeating: nil, count: paths.count))
    let scanner = self.scanner
    DispatchQueue.concurrentPerform(iterations: paths.count) { index in
      let scan = scanner(paths[index])
      results.withLock { $0[index] = scan }
    }
    return results.withLock { $0 }.map { $0 ?? .rejected(reason: "was not scanned", help: nil) }
  }

  private enum Scanned {
    case found(PluginRecord)
    case rejected(PluginCatalogue.Rejection)
  }

  /// The record a scan gives, or the rejection.
  private static func record(_ path: String, _ scan: PluginScan?) -> Scanned {
    switch scan {
    case .none:
      return .rejected(.init(path: path, reason: "was not scanned"))
    case .rejected(let reason, let help):
      return .rejected(.init(path: path, reason: reason, help: help))
    case .plugin(let json, let major, let minor, let size):
      do {
        let manifest = try Manifest(json: json)
        return .found(PluginRecord(path: path, manifest: manifest, abiMajor: major, abiMinor: minor, structSize: size))
      } catch {
        return .rejected(.init(path: path, reason: "'\(path)': \(error.message)"))
      }
    }
  }
}
