import FeatureTesting
import Foundation
import HostKit
import Synchronization
import Testing

/// A scanner that answers from a table and counts the files it was asked about.
final class CountingScanner: Sendable {
  let calls = Mutex<[String]>([])

  /// A manifest for the feature the file's name (`libNAME.so`) names.
  static func manifest(for path: String) -> String {
    let name = (path as NSString).lastPathComponent.dropFirst(3).dropLast(3)
    return #"{"id":"\#(name)","name":"\#(name)","version":"1.0.0","actions":[]}"#
  }

  var scanner: PluginScanner {
    { [self] path in
      calls.withLock { $0.append(path) }
      if path.hasSuffix("bad.so") { return .rejected(reason: "crashed with signal 11 (Segmentation fault)", help: nil) }
      return .plugin(manifestJSON: Self.manifest(for: path), abiMajor: 1, abiMinor: 0, structSize: 112)
    }
  }

  var count: Int { calls.withLock { $0.count } }
}

@Suite("Plugin registry")
struct PluginRegistryTests {
  struct Harness {
    let folder: String
    let cacheFile: String
    let scanner = CountingScanner()

    init() throws {
      folder = try FixturePlugin.temporaryFolder()
      cacheFile = "\(try FixturePlugin.temporaryFolder())/featurehost/registry.json"
      for name in ["liba.so", "libbad.so"] { try write("not really a library", to: name) }
    }

    func write(_ text: String, to name: String) throws {
      try text.write(toFile: "\(folder)/\(name)", atomically: false, encoding: .utf8)
      chmod("\(folder)/\(name)", 0o644)
    }

    func catalogue(host: String = "1.0 a") -> PluginCatalogue {
      PluginRegistry(
        directories: [folder], cache: RegistryCache(path: cacheFile), hostVersion: host, scanner: scanner.scanner
      ).catalogue()
    }
  }

  @Test func aWarmRegistryRunsNoScanner() throws {
    // given a registry that has scanned its folder once
    let harness = try Harness()
    let first = harness.catalogue()
    #expect(harness.scanner.count == 2)
    // when it is asked again with nothing changed
    let second = harness.catalogue()
    // then no file is scanned, and the catalogue is the same, rejection included
    #expect(harness.scanner.count == 2)
    #expect(second.scanned.isEmpty)
    #expect(second.ids == ["a"])
    #expect(second.plugins == first.plugins)
    #expect(second.rejections == first.rejections)
    #expect(second.rejections.map(\.reason) == ["crashed with signal 11 (Segmentation fault)"])
  }

  /// A change to a plugin file that must make the registry scan it again.
  struct FileChange: Sendable, CustomTestStringConvertible {
    let id: String
    let apply: @Sendable (String) throws -> Void
    var testDescription: String { id }
  }

  static let changes: [FileChange] = [
    FileChange(id: "mtime") { path in
      var times = [timespec(tv_sec: 1_000_000, tv_nsec: 5), timespec(tv_sec: 1_000_000, tv_nsec: 5)]
      #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    },
    FileChange(id: "mtime-nanoseconds-only") { path in
      var info = stat()
      #expect(stat(path, &info) == 0)
      var times = [info.st_atim, info.st_mtim]
      times[1].tv_nsec = (times[1].tv_nsec + 1) % 1_000_000_000
      #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    },
    FileChange(id: "size") { path in
      var info = stat()
      #expect(stat(path, &info) == 0)
      let handle = try #require(FileHandle(forWritingAtPath: path))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data("more".utf8))
      try handle.close()
      // The same mtime as before, so only the size tells.
      var times = [info.st_atim, info.st_mtim]
      #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    },
    FileChange(id: "inode") { path in
      var info = stat()
      #expect(stat(path, &info) == 0)
      let copy = path + ".new"
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      var times = [info.st_atim, info.st_mtim]
      #expect(utimensat(AT_FDCWD, copy, &times, 0) == 0)
      #expect(rename(copy, path) == 0)
    },
  ]

  @Test("a changed file is scanned again", arguments: changes)
  func aChangedFileIsScannedAgain(_ change: FileChange) throws {
    // given a warm registry
    let harness = try Harness()
    _ = harness.catalogue()
    let before = harness.scanner.count
    // when one file changes
    try change.apply("\(harness.folder)/liba.so")
    let catalogue = harness.catalogue()
    // then that file alone is scanned again
    #expect(harness.scanner.count == before + 1)
    #expect(catalogue.scanned == ["\(harness.folder)/liba.so"])
    #expect(catalogue.ids == ["a"])
  }

  @Test func anotherHostVersionScansAgain() throws {
    let harness = try Harness()
    _ = harness.catalogue(host: "1.0 a")
    let catalogue = harness.catalogue(host: "1.1 b")
    #expect(harness.scanner.count == 4)
    #expect(catalogue.scanned.count == 2)
  }

  /// A cache file that cannot be used.
  struct BadCache: Sendable, CustomTestStringConvertible {
    let id: String
    let bytes: [UInt8]
    var testDescription: String { id }
  }

  static let badCaches: [BadCache] = [
    BadCache(id: "empty", bytes: []),
    BadCache(id: "garbage", bytes: Array("not json at all {".utf8)),
    BadCache(id: "binary", bytes: [0, 255, 254, 7, 0, 1]),
    BadCache(id: "truncated", bytes: Array(#"{"format":1,"entries":{"/x/liba.so":{"file":"#.utf8)),
    BadCache(id: "another-format", bytes: Array(#"{"format":99,"entries":{}}"#.utf8)),
    BadCache(id: "entries-not-an-object", bytes: Array(#"{"format":1,"entries":[1,2]}"#.utf8)),
    BadCache(id: "entry-without-scan", bytes: Array(#"{"format":1,"entries":{"/x":{"file":"1","host":"h"}}}"#.utf8)),
  ]

  @Test("a corrupt cache is ignored and rewritten", arguments: badCaches)
  func aCorruptCacheIsIgnored(_ bad: BadCache) throws {
    // given a cache file holding something unusable
    let harness = try Harness()
    try FileManager.default.createDirectory(
      atPath: (harness.cacheFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bad.bytes).write(to: URL(fileURLWithPath: harness.cacheFile))
    // when the registry makes its catalogue
    let catalogue = harness.catalogue()
    // then every file is scanned, and the cache now serves the next one
    #expect(catalogue.scanned.count == 2)
    #expect(catalogue.ids == ["a"])
    #expect(harness.catalogue().scanned.isEmpty)
    #expect(harness.scanner.count == 2)
  }

  @Test func aCacheThatCannotBeWrittenOnlyCostsScans() throws {
    // given a cache path below a regular file, where no folder can be made
    let harness = try Harness()
    let blocker = "\(try FixturePlugin.temporaryFolder())/blocker"
    try "x".write(toFile: blocker, atomically: false, encoding: .utf8)
    let registry = PluginRegistry(
      directories: [harness.folder], cache: RegistryCache(path: "\(blocker)/featurehost/registry.json"),
      hostVersion: "1", scanner: harness.scanner.scanner)
    // when it makes its catalogue twice, then both work and both scan
    #expect(registry.catalogue().ids == ["a"])
    #expect(registry.catalogue().ids == ["a"])
    #expect(harness.scanner.count == 4)
  }

  @Test func twoRegistriesWritingOneCacheKeepEachOthersEntries() throws {
    // given two folders scanned by two registries into one cache file
    let harness = try Harness()
    let other = try FixturePlugin.temporaryFolder()
    try "x".write(toFile: "\(other)/libc.so", atomically: false, encoding: .utf8)
    chmod("\(other)/libc.so", 0o644)
    _ = harness.catalogue()
    let second = PluginRegistry(
      directories: [other], cache: RegistryCache(path: harness.cacheFile), hostVersion: "1.0 a",
      scanner: harness.scanner.scanner)
    _ = second.catalogue()
    // then the cache holds the entries of both, and neither rescans
    let paths = Set(RegistryCache(path: harness.cacheFile).entries().keys)
    #expect(paths == ["\(harness.folder)/liba.so", "\(harness.folder)/libbad.so", "\(other)/libc.so"])
    #expect(harness.catalogue().scanned.isEmpty)
    #expect(second.catalogue().scanned.isEmpty)
  }

  @Test("a candidate that is not a regular file is rejected without being opened", arguments: ["fifo", "folder"])
  func aSpecialFileIsRejectedUnopened(_ kind: String) throws {
    // given a FIFO or a folder named like a plugin (a FIFO would block whoever opened it)
    let harness = try Harness()
    let path = "\(harness.folder)/libz.so"
    if kind == "fifo" { #expect(mkfifo(path, 0o600) == 0) } else { #expect(mkdir(path, 0o700) == 0) }
    // when the registry makes its catalogue
    let catalogue = harness.catalogue()
    // then it is rejected, saying what it is, and the scanner never saw it
    let reason = try #require(catalogue.rejections.first { $0.path == path }?.reason)
    #expect(reason.contains(kind == "fifo" ? "a FIFO (named pipe)" : "a folder"))
    #expect(!harness.scanner.calls.withLock { $0 }.contains(path))
  }

  @Test func aFeatureThatFailsToLoadWhenOpenedIsAnErrorAndTheFlowStaysPut() throws {
    // given a runtime showing the counter, offering a feature whose file no longer loads
    let folder = try FixturePlugin.temporaryFolder()
    let ghost = PluginRecord(
      path: "\(folder)/libghost.so", manifest: try Manifest(json: CountingScanner.manifest(for: "libghost.so")),
      abiMajor: 1, abiMinor: 0, structSize: 112)
    var settings = RunSettings()
    settings.temporaryRoot = folder
    let runtime = SessionRuntime(
      plugins: [PluginRecord(try PluginLoader.load(CounterLibrary.path)), ghost], flow: .single("counter"),
      settings: settings, renderers: [], reporter: RecordingReporter())
    defer { runtime.close() }
    try runtime.open()
    // when the user opens it
    let error = #expect(throws: HostError.self) { try runtime.open("ghost") }
    // then the error names the feature and its file, and the counter is still shown
    #expect(error?.message.hasPrefix("cannot load feature 'ghost': '\(folder)/libghost.so'") == true)
    #expect(runtime.top?.features.map(\.id) == ["counter"])
  }
}
