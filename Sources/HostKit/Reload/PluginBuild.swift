import Dispatch
import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// One build of a plugin file as a reload sees it: the loaded plugin and a hash of its bytes.
public struct PluginBuild: Sendable {
  public let plugin: LoadedPlugin
  private let hashed: BuildHash

  public init(plugin: LoadedPlugin, hash: String) {
    self.plugin = plugin
    hashed = BuildHash(hash)
  }

  /// The build of `plugin` as its file is now, hashed on another thread: a run needs the hash
  /// only when it reloads, and the file is read (a few megabytes) while the run starts.
  init(hashing plugin: LoadedPlugin) {
    self.plugin = plugin
    hashed = BuildHash(hashing: plugin.path)
  }

  /// `xxh64:` and 16 hex digits: tells two builds apart in the journal. Waits for the hash
  /// when it is still being worked out.
  public var hash: String { hashed.value }

  public var version: String { plugin.manifest.version }
}

/// A build's hash, given or being worked out.
private final class BuildHash: Sendable {
  private let worked = DispatchGroup()
  private let result = Locked<String?>(nil)

  init(_ hash: String) { result.withLock { $0 = hash } }

  init(hashing path: String) {
    worked.enter()
    DispatchQueue.global(qos: .utility).async { [self] in
      let hash = BuildFile.hash(path) ?? "unknown"
      result.withLock { $0 = hash }
      worked.leave()
    }
  }

  var value: String {
    worked.wait()
    return result.withLock { $0 } ?? "unknown"
  }
}

/// Reading plugin files: their hash, and whether a build being written is complete.
public enum BuildFile {
  /// The XXH64 hash of the file at `path`, as `xxh64:HEX`; nil when it cannot be read.
  public static func hash(_ path: String) -> String? {
    var hash = XXH64()
    guard read(path, { hash.update($0) }) else { return nil }
    return label(hash)
  }

  private static func label(_ hash: XXH64) -> String {
    "xxh64:" + String(hash.digest(), radix: 16).leftPadded(16)
  }

  /// Copies `source` to `destination` (created, mode 0700) and hashes what it copied; nil when
  /// either file fails.
  static func copy(_ source: String, to destination: String) -> String? {
    let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o700)
    guard output >= 0 else { return nil }
    defer { close(output) }
    var hash = XXH64()
    var failed = false
    let ok = read(source) { bytes in
      hash.update(bytes)
      guard let base = bytes.baseAddress else { return }
      var offset = 0
      while offset < bytes.count, !failed {
        let written = write(output, base + offset, bytes.count - offset)
        if written <= 0 { failed = true } else { offset += written }
      }
    }
    guard ok, !failed else {
      unlink(destination)
      return nil
    }
    return label(hash)
  }

  /// Whether `path` holds a whole ELF shared object: its header is there and the section header
  /// table, which linkers write last, ends within the file. A build still being written fails.
  public static func isComplete(_ path: String) -> Bool {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { return false }
    defer { close(file) }
    var info = stat()
    guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
    var header = [UInt8](repeating: 0, count: 64)
    guard pread(file, &header, 64, 0) == 64, header[0] == 0x7f, header[1] == 0x45, header[2] == 0x4c,
      header[3] == 0x46, header[4] == 2, header[5] == 1
    else { return false }
    func integer(_ offset: Int, _ size: Int) -> UInt64 {
      (0..<size).reduce(UInt64(0)) { $0 | UInt64(header[offset + $1]) << (8 * UInt64($1)) }
    }
    let sectionOffset = integer(0x28, 8)
    let sectionSize = integer(0x3a, 2)
    let sectionCount = integer(0x3c, 2)
    return sectionOffset + sectionSize * sectionCount <= UInt64(info.st_size)
  }

  /// Reads the file in 64 KiB blocks, handing each to `body`; false when it cannot be read.
  private static func read(_ path: String, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { return false }
    defer { close(file) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
    defer { buffer.deallocate() }
    while true {
      let count = Glibc.read(file, buffer.baseAddress, buffer.count)
      if count < 0 {
        if errno == EINTR { continue }
        return false
      }
      if count == 0 { return true }
      body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
