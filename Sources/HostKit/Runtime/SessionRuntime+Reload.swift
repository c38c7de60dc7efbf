import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// How a run reloads its features from new builds of their plugin files.
public struct ReloadSettings: Sendable {
  /// Whether the plugin files are watched, each feature reloaded when its file changes (`--watch`).
  public var watches = false
  /// How new builds are loaded: here (instances in this process) or by workers only.
  public var loading: PluginBuilds.Loading = .inProcess
  /// Checks a new build in a child process before anything loads it (the host's scanner); nil
  /// loads it without that check (needed with `.workers`, to read its manifest).
  public var scanner: PluginScanner?
  /// How long a changed file must stay unchanged before it is loaded.
  public var settle: Duration = .milliseconds(15)

  public init() {}
}

/// What a runtime keeps for reloading: the builds (made in the run's temporary folder on first
/// use) and the watch.
final class RuntimeReloads: Sendable {
  private struct State {
    var builds: PluginBuilds?
    var watch: FileWatch?
    /// Per plugin file, the identity (`FileIdentity`) it had when it was last found unchanged.
    var unchangedNoted: [String: FileIdentity] = [:]
  }

  private let state = Mutex(State())

  func builds(folder: @autoclosure () -> String, settings: ReloadSettings) -> PluginBuilds {
    state.withLock { state in
      if let builds = state.builds { return builds }
      let builds = PluginBuilds(loading: settings.loading, scanner: settings.scanner, folder: folder())
      state.builds = builds
      return builds
    }
  }

  func watching(_ watch: FileWatch) { state.withLock { $0.watch = watch } }

  /// Whether to say that `path`, now `identity`, holds the build already running: once per
  /// change of the file, however many events one save makes.
  func shouldNoteUnchanged(_ path: String, identity: FileIdentity?) -> Bool {
    state.withLock { state in
      guard let identity else { return false }
      defer { state.unchangedNoted[path] = identity }
      return state.unchangedNoted[path] != identity
    }
  }

  /// Ends the watch (waiting for a reload it is making).
  func stopWatching() {
    let watch = state.withLock { state in
      defer { state.watch = nil }
      return state.watch
    }
    watch?.cancel()
  }
}

extension SessionRuntime {
  /// The builds this run's features are made from.
  public var builds: PluginBuilds {
    reloads.builds(folder: "\(temporaryFolder ?? NSTemporaryDirectory())/builds", settings: settings.reload)
  }

  /// The manifest of the build `feature` runs now (its actions change with a reload).
  public func manifest(of feature: PresentedFeature) -> Manifest {
    builds.current(of: feature.plugin).plugin.manifest
  }

  /// What makes each feature's instances: the settings' factory, from the current build.
  var reloadingInstances: InstanceFactory { builds.factory(wrapping: settings.instances) }

  /// Reloads `feature` from its plugin file as it is now (`:reload`): a new instance of the new
  /// build takes the state over (see `Store.reload`); the note about it goes to the reporter.
  /// Throws, leaving the feature running as it was, when the build or the state is refused.
  public func reload(_ feature: PresentedFeature) throws(HostError) {
    let original = builds.original(of: feature.plugin)
    // A hash no file has: `:reload` loads the file even when its bytes did not change.
    guard let result = try reload([feature], from: original, unlessHash: "", reportsFailures: false) else { return }
    try result.get()
  }

  /// Starts watching the plugin files of the features this run can present (`--watch`).
  func startWatching() throws(HostError) {
    let paths = plugins.map { URL(fileURLWithPath: $0.path).standardizedFileURL.path }
    let watch = try FileWatch(.files(paths), settle: settings.reload.settle, isReady: BuildFile.isComplete) {
      [weak self] changed in
      self?.reloadChanged(changed)
    }
    reloads.watching(watch)
  }

  /// Reloads every presented feature whose plugin file is among `paths`, each file staged once.
  /// Errors go to the reporter; a file whose bytes did not change is left alone, with a note.
  func reloadChanged(_ paths: [String]) {
    let features = coordinator?.all ?? []
    for path in paths {
      let running = features.filter {
        URL(fileURLWithPath: builds.original(of: $0.plugin)).standardizedFileURL.path == path
      }
      guard let first = running.first else { continue }
      let previous = builds.current(of: first.plugin)
      do {
        let original = builds.original(of: first.plugin)
        let made = try reload(running, from: original, unlessHash: previous.hash, reportsFailures: true)
        // Put back, the old build is the one running: say so, or the save seems ignored.
        if made == nil, reloads.shouldNoteUnchanged(path, identity: Self.identity(of: original)) {
          reporter.notice(.buildUnchanged(feature: first.id, version: previous.version))
        }
      } catch {
        reporter.report(error)
      }
    }
  }

  /// Stages the plugin file `original` once and reloads `features` (all of that file) from it.
  /// Nil when the file's bytes hash to `unchanged`. Throws when the build is rejected; each
  /// feature's reload failure goes to the reporter with `reportsFailures`, else the first is
  /// returned.
  private func reload(
    _ features: [PresentedFeature], from original: String, unlessHash unchanged: String, reportsFailures: Bool
  ) throws(HostError) -> Result<Void, HostError>? {
    guard let first = features.first else { return nil }
    let builds = self.builds
    let reporter = self.reporter
    let previous = builds.current(of: first.plugin)
    let base = settings.instances
    let plugin = first.plugin
    let store = first.store
    // With workers, the first feature's new worker starts loading the copy while it is scanned.
    guard
      let (build, made) = try builds.stage(
        original, feature: first.id, unlessHash: unchanged,
        meanwhile: { copy -> Result<any PluginInstance, HostError> in
          let provisional = LoadedPlugin(
            path: copy, manifest: plugin.manifest, abiMajor: plugin.abiMajor, abiMinor: plugin.abiMinor,
            structSize: plugin.structSize, functions: plugin.functions)
          return Result { () throws(HostError) in
            try base.makeInstance(of: provisional, config: store.config, target: store.relay)
          }
        }, undo: { made in (try? made.get())?.destroy() })
    else { return nil }
    let adopted = Atomic<Bool>(false)
    var firstFailure: HostError?
    for (index, feature) in features.enumerated() {
      var instance: (any PluginInstance)?
      if index == 0, let made {
        switch made {
        case .success(let fresh): instance = fresh
        case .failure(let error):
          let failure = HostError(
            ReloadFailure.createFailed(feature: feature.id, version: build.version, reason: error.message))
          if reportsFailures { reporter.report(failure) } else if firstFailure == nil { firstFailure = failure }
          continue
        }
      }
      let result = feature.store.reload(to: build, replacing: previous, made: instance) { result in
        switch result {
        case .success(let report):
          if !adopted.exchange(true, ordering: .relaxed) { builds.adopt(build, forFile: original) }
          reporter.notice(.reloaded(report))
        case .failure(let error):
          if reportsFailures { reporter.report(error) }
        }
      }
      if case .failure(let error) = result, !reportsFailures, firstFailure == nil { firstFailure = error }
    }
    if !adopted.load(ordering: .relaxed) { builds.discard(build) }
    return firstFailure.map { .failure($0) } ?? .success(())
  }

  /// The identity of the file at `path`, nil when it cannot be read.
  private static func identity(of path: String) -> FileIdentity? {
    var info = stat()
    return stat(path, &info) == 0 ? FileIdentity(info) : nil
  }
}
