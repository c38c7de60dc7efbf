import FeatureABI
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The builds a run reloads its features from: stages each new build of a plugin file, and knows
/// the current build of every plugin so that later instances (a feature opened again, an
/// instance restarted after a crash) are made from it.
///
/// A new build is copied under a new name into `folder` (hashing it on the way), checked in a
/// child process by `scanner` when there is one (a build that crashes while it loads costs that
/// child), then, for instances in this process, loaded from the copy: a Swift plugin is never
/// dlclosed, so a changed file can only come in under a path the process has not loaded. For
/// instances in worker processes the host loads nothing: each new worker loads the copy.
/// Thread-safe.
public final class PluginBuilds: Sendable {
  /// Where instances run, which decides how a build is loaded.
  public enum Loading: Sendable {
    /// In this process: each build is dlopened here, from its copy (and stays mapped).
    case inProcess
    /// In worker processes: the host reads only the manifest, through `scanner`.
    case workers
  }

  private struct Builds {
    /// The current build by the path of the plugin file it came from.
    var current: [String: PluginBuild] = [:]
    /// The plugin file each build's path came from (a copy's original).
    var origins: [String: String] = [:]
    /// Copies made so far (the next one's number).
    var copies = 0
  }

  private let loading: Loading
  private let scanner: PluginScanner?
  private let folder: String
  private let builds = Mutex(Builds())

  /// Builds staged in `folder` (made when needed; its owner removes it). With `.workers`, a
  /// `scanner` is needed to read a build's manifest.
  public init(loading: Loading, scanner: PluginScanner?, folder: String) {
    self.loading = loading
    self.scanner = scanner
    self.folder = folder
  }

  /// Makes instances from the current build of their plugin, through `base`.
  public func factory(wrapping base: InstanceFactory) -> InstanceFactory {
    InstanceFactory { [self] plugin, config, target throws(HostError) in
      try base.makeInstance(of: current(of: plugin).plugin, config: config, target: target)
    }
  }

  /// The plugin file `plugin` came from: its own path, or the original of a staged copy.
  public func original(of plugin: LoadedPlugin) -> String {
    builds.withLock { $0.origins[plugin.path] } ?? plugin.path
  }

  /// The build instances of `plugin` are made from now: the plugin itself until a reload.
  /// The first time, starts hashing its file (the file a later change replaces).
  public func current(of plugin: LoadedPlugin) -> PluginBuild {
    let original = original(of: plugin)
    if let known = builds.withLock({ $0.current[original] }) { return known }
    let build = PluginBuild(hashing: plugin)
    return builds.withLock { state in
      if let known = state.current[original] { return known }
      state.current[original] = build
      return build
    }
  }

  /// Remembers the plugins a run starts with (hashing their files), before any of them changes.
  public func remember(_ plugin: LoadedPlugin) { _ = current(of: plugin) }

  /// The first build of the plugin file `path` holding `feature`, staged as a reload's would be:
  /// a watched run never maps the file a build rewrites in place (that would change the code
  /// under a running instance).
  public func launch(_ path: String, feature: String) throws(HostError) -> LoadedPlugin {
    if let known = builds.withLock({ $0.current[path] }) { return known.plugin }
    let build = try stage(path, feature: feature)
    adopt(build, forFile: path)
    return build.plugin
  }

  /// Stages the plugin file `path` as it is now as a new build of `feature`: copied, checked and
  /// loaded as `loading` says. Does not make it current (`adopt` does, once an instance runs it).
  public func stage(_ path: String, feature: String) throws(HostError) -> PluginBuild {
    // A hash no file has: always staged.
    guard let build = try stage(path, feature: feature, unlessHash: "") else {
      throw HostError(ReloadFailure.buildRejected(feature: feature, path: path, reason: "it did not change"))
    }
    return build
  }

  /// `stage`, or nil (having loaded nothing) when the file's bytes hash to `unchanged`: a save
  /// that did not change the build.
  public func stage(_ path: String, feature: String, unlessHash unchanged: String) throws(HostError) -> PluginBuild? {
    try stage(path, feature: feature, unlessHash: unchanged, meanwhile: { _ in () }, undo: { _ in })?.build
  }

  /// Links the `*_private.so` libraries beside `path` into the staging folder: a plugin that
  /// opens a companion library from its own folder (kittens' http client) finds it beside its copy.
  private func linkCompanions(of path: String) {
    guard let original = realpath(path, nil) else { return }
    defer { free(original) }
    let resolved = String(cString: original)
    let source = resolved.lastIndex(of: "/").map { String(resolved[..<$0]) } ?? "."
    let names = (try? FileManager.default.contentsOfDirectory(atPath: source)) ?? []
    for name in names where name.hasSuffix("_private.so") {
      // Already linked by an earlier build: EEXIST, and the link is kept.
      _ = symlink("\(source)/\(name)", "\(folder)/\(name)")
    }
  }

  /// `stage(_:feature:unlessHash:)`; with `.workers`, runs `meanwhile` with the copy's path while
  /// the scanner checks it (a new worker can load the copy at the same time: one process start
  /// instead of two, one after the other) and returns its result with the build. When the build
  /// is rejected, `undo` gets that result.
  public func stage<Extra>(
    _ path: String, feature: String, unlessHash unchanged: String, meanwhile: (String) -> Extra,
    undo: (Extra) -> Void
  ) throws(HostError) -> (build: PluginBuild, extra: Extra?)? {
    let number = builds.withLock { state in
      state.copies += 1
      return state.copies
    }
    if mkdir(folder, 0o700) != 0 && errno != EEXIST {
      throw HostError(
        ReloadFailure.buildRejected(
          feature: feature, path: path, reason: "cannot make '\(folder)': \(String(cString: strerror(errno)))"))
    }
    let name = path.split(separator: "/").last.map(String.init) ?? "plugin.so"
    let copy = "\(folder)/\(number)-\(name)"
    guard let hash = BuildFile.copy(path, to: copy) else {
      throw HostError(
        ReloadFailure.buildRejected(
          feature: feature, path: path, reason: "cannot copy it to '\(copy)': \(String(cString: strerror(errno)))"))
    }
    if hash == unchanged {
      unlink(copy)
      return nil
    }
    linkCompanions(of: path)
    if case .workers = loading, let running = runningBuild(of: path, hash: hash) {
      // The bytes of the build running now: its manifest is the copy's, known without a scan
      // (a `:reload` of an unchanged file, which starts its features anew).
      let plugin = Self.forWorkers(
        copy, manifest: running.manifest, version: (running.abiMajor, running.abiMinor, running.structSize))
      return (PluginBuild(plugin: plugin, hash: hash), meanwhile(copy))
    }
    var scan: PluginScan?
    var extra: Extra?
    if case .workers = loading, let scanner {
      let answer = Mutex<PluginScan?>(nil)
      let scanned = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        answer.withLock { $0 = scanner(copy) }
        scanned.signal()
      }
      extra = meanwhile(copy)
      scanned.wait()
      scan = answer.withLock { $0 }
    }
    do throws(HostError) {
      let loaded = try load(copy, feature: feature, original: path, scanned: scan)
      // A copy loaded here is mapped: the file is no longer needed. A worker's is, until replaced.
      if case .inProcess = loading { unlink(copy) }
      return (PluginBuild(plugin: loaded, hash: hash), extra)
    } catch {
      if let extra { undo(extra) }
      unlink(copy)
      throw error
    }
  }

  /// The plugin of the current build of the file `path` when its bytes hash to `hash`.
  private func runningBuild(of path: String, hash: String) -> LoadedPlugin? {
    // The hash may still be worked out: waited for outside the lock.
    guard let current = builds.withLock({ $0.current[path] }), current.hash == hash else { return nil }
    return current.plugin
  }

  /// Makes `build` the current build of the plugin file `path`; removes the copy it replaces,
  /// which no instance uses any more.
  public func adopt(_ build: PluginBuild, forFile path: String) {
    let replaced = builds.withLock { state in
      let old = state.current[path]
      state.current[path] = build
      state.origins[build.plugin.path] = path
      return old
    }
    if case .workers = loading, let replaced, replaced.plugin.path.hasPrefix(folder + "/") {
      unlink(replaced.plugin.path)
    }
  }

  /// Throws away a staged build no instance took.
  public func discard(_ build: PluginBuild) {
    if case .workers = loading, build.plugin.path.hasPrefix(folder + "/") { unlink(build.plugin.path) }
  }

  private func load(_ copy: String, feature: String, original: String, scanned: PluginScan?) throws(HostError)
    -> LoadedPlugin
  {
    func rejected(_ reason: String) -> HostError {
      HostError(ReloadFailure.buildRejected(feature: feature, path: original, reason: reason))
    }
    var manifest: Manifest?
    var version: (major: UInt32, minor: UInt32, size: UInt32) = (0, 0, 0)
    if let scan = scanned ?? scanner.map({ $0(copy) }) {
      switch scan {
      case .rejected(let reason, _):
        throw rejected(reason)
      case .plugin(let json, let major, let minor, let size):
        do {
          manifest = try Manifest(json: json)
        } catch {
          throw rejected(error.message)
        }
        version = (major, minor, size)
      }
    }
    let plugin: LoadedPlugin
    switch loading {
    case .inProcess:
      do {
        plugin = try PluginLoader.load(copy)
      } catch {
        throw rejected(error.message)
      }
    case .workers:
      guard let manifest else { throw rejected("no scanner to read its manifest with") }
      plugin = Self.forWorkers(copy, manifest: manifest, version: version)
    }
    guard plugin.id == feature else {
      throw HostError(ReloadFailure.otherFeature(feature: feature, path: original, now: plugin.id))
    }
    return plugin
  }

  /// The copy `copy` as the host knows a build its workers load: its manifest and ABI, none of
  /// its functions (the host never calls them).
  private static func forWorkers(
    _ copy: String, manifest: Manifest, version: (major: UInt32, minor: UInt32, size: UInt32)
  ) -> LoadedPlugin {
    LoadedPlugin(
      path: copy, manifest: manifest, abiMajor: version.major, abiMinor: version.minor, structSize: version.size,
      functions: fh_plugin(), isLoadedHere: false)
  }
}
