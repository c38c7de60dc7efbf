import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a flow of features for a front end: launches them (stores, journals, sessions), settles
/// them, has them drawn by its renderers, retires them, and moves them through their history.
///
/// The front end reads input and calls in from one thread: `open`, then `send` and the commands,
/// then `finish` and `close`. Stores and navigation call back on their own threads; errors and
/// notices that answer no call go to the `RuntimeReporter`.
// @unchecked: the launch bookkeeping is touched on the coordinator's queue only (launch, record),
// the rest by the front end's thread before `open` and after `close`.
public final class SessionRuntime: FeatureLauncher, @unchecked Sendable {

  /// The config (a JSON object) a feature is created with, from its plugin and its presentation
  /// number (1 for the flow's first feature).
  public typealias ConfigProvider = @Sendable (_ plugin: LoadedPlugin, _ number: Int) -> String

  /// The features the flow may present; each is loaded when it is first launched.
  public let plugins: [PluginRecord]
  public let flow: Flow
  let settings: RunSettings
  let renderers: [any FeatureRenderer]
  /// Every listener of each feature's store but the runtime's own: the renderers, then the others.
  private let listeners: [any StoreListener]
  let config: ConfigProvider
  let reporter: any RuntimeReporter
  private(set) var coordinator: Coordinator?
  /// The session's navigation journal (a named session only).
  private var navigation: NavigationJournal?
  /// Whether the last write of `navigation` failed (its steps wait in it for the next write).
  private var navigationUnsaved = false
  /// Whether the first feature of the run was launched (it owns NAME.jsonl).
  private var launchedFirst = false
  /// The number of the last feature journal in the session's folder.
  private var lastJournalNumber = 1
  /// The plugins loaded so far, by path (on the coordinator's queue).
  private var loaded: [String: LoadedPlugin] = [:]
  /// Holds the journals of features without a named session, from `open` to `close`.
  public private(set) var temporaryFolder: String?
  /// Features closed after losing their instance, and the navigation that followed.
  private let closings: FeatureClosings
  /// The builds features are reloaded from, and the watch over their files.
  let reloads = RuntimeReloads()
  /// The feature launched first, whose journal is the session's NAME.jsonl.
  private var firstFeature: PresentedFeature?
  /// Set by `interruptWait` (Ctrl-C): the settle under way stops waiting.
  let waitInterrupted = Atomic<Bool>(false)
  /// Set once any journal failed to write (even if a retry saved it later): the run's exit
  /// status says so (`hadJournalTrouble`).
  let journalTrouble = Atomic<Bool>(false)
  /// "feature kind" of each sandbox refusal said: each is said once a run.
  let sandboxRefusalsSaid = Mutex<Set<String>>([])

  /// Whether any journal of the run failed to write.
  public var hadJournalTrouble: Bool { journalTrouble.load(ordering: .relaxed) }

  /// A runtime for `flow` over `plugins`, drawn by `renderers` (and heard by `listeners`), each
  /// feature created with the config `config` gives it. A plugin is loaded into this process only
  /// when a feature of it is launched.
  public init(
    plugins: [PluginRecord], flow: Flow, settings: RunSettings, renderers: [any FeatureRenderer],
    listeners: [any StoreListener] = [], reporter: any RuntimeReporter,
    config: @escaping ConfigProvider = { _, _ in "{}" }
  ) {
    self.plugins = plugins
    self.flow = flow
    self.settings = settings
    self.renderers = renderers
    self.listeners = renderers + listeners
    self.reporter = reporter
    self.config = config
    closings = FeatureClosings(alert: settings.featureClosed)
  }

  /// What the runtime keeps with each presented feature.
  final class Context: Sendable {
    let journal: SessionJournal
    /// The journal's path relative to the sessions folder, when the run is a named session.
    let relativePath: String?

    init(journal: SessionJournal, relativePath: String?) {
      self.journal = journal
      self.relativePath = relativePath
    }
  }

  /// Whether a renderer draws views as they change (input from a terminal).
  var isLive: Bool { renderers.contains { $0.followsViews } }

  /// Presents the flow's start, or the stack a named session recorded. Throws (having stopped
  /// whatever it launched) when a feature cannot be launched; call `close` either way.
  public func open() throws(HostError) {
    temporaryFolder = try Self.makeTemporaryFolder(in: settings.temporaryRoot ?? NSTemporaryDirectory())
    let coordinator = Coordinator(
      flow: flow, plugins: plugins, launcher: self, logsNavigation: settings.logsNavigation)
    self.coordinator = coordinator
    do throws(HostError) {
      if let frames = try openNavigation() {
        // `host run ID --session NAME`: NAME must hold ID.
        if case .push(.feature(let asked)) = flow.start, let name = settings.session,
          let held = frames.first?.features.first?.id, held != asked
        {
          throw HostError(RuntimeFailure.sessionHoldsOther(session: name, holds: held, asked: asked))
        }
        try coordinator.restore(frames)
      } else {
        try coordinator.start()
      }
      if settings.reload.watches { try startWatching() }
    } catch {
      coordinator.stopAll()
      throw error
    }
  }

  /// The input ended (or the user quit): with `settling`, waits (bounded) for the shown features
  /// to settle; then the renderers draw what is left.
  public func finish(settling: Bool) {
    if settling { settle() }
    guard let top = coordinator?.top else { return }
    for renderer in renderers { renderer.finish(top.features, focus: top.focus) }
  }

  /// Called on a closed feature's store thread (see `FeatureClosings`).
  func closed(_ feature: PresentedFeature) { closings.closed(feature, in: coordinator) }

  /// Waits until the navigation that closed features started is done.
  public func waitForClosings() { closings.wait() }

  /// Whether the feature input goes to was closed after losing its instance: nothing is left to
  /// run, and a front end ends the run with a failure status. Waits for `waitForClosings` first.
  public var hasEndedByClosing: Bool {
    guard closings.anyClosed else { return false }
    waitForClosings()
    return focused?.store.isClosed ?? false
  }

  /// Stops every feature, closes the journals and removes the temporary folder. Idempotent.
  public func close() {
    reloads.stopWatching()
    closings.wait()
    // At a terminal, leaving a named session says where it stopped.
    let first = firstFeature
    coordinator?.stopAll()
    if isLive, let name = settings.session, let journal = (first?.context as? Context)?.journal {
      reporter.notice(.sessionSaved(session: name, sequence: journal.lastSequence))
    }
    firstFeature = nil
    // The coordinator holds this runtime as its launcher: let go of it.
    coordinator = nil
    if let error = navigation?.close() {
      journalTrouble.store(true, ordering: .relaxed)
      if !navigationUnsaved { reporter.report(error) }
      reporter.notice(.navigationJournalUnsavedAtStop)
    }
    navigation = nil
    navigationUnsaved = false
    if let folder = temporaryFolder {
      try? FileManager.default.removeItem(atPath: folder)
      temporaryFolder = nil
    }
  }

  /// The feature input goes to: the focus of the top frame.
  public var focused: PresentedFeature? { coordinator?.top?.focus }

  /// The features on the top frame, and the focused one.
  public var top: (features: [PresentedFeature], focus: PresentedFeature)? { coordinator?.top }

  // MARK: - FeatureLauncher

  public func launch(_ record: PluginRecord, number: Int, journal recorded: String?) throws(HostError)
    -> PresentedFeature
  {
    let plugin: LoadedPlugin
    if let known = loaded[record.path] {
      plugin = known
    } else {
      // A watched run loads a copy, so that a build written in place never changes running code.
      // Workers load it: no code of it runs here.
      if settings.reload.watches {
        plugin = try builds.launch(record.path, feature: record.id)
      } else if !settings.instances.runsPluginsHere {
        plugin = record.described()
      } else {
        plugin = try record.load()
      }
      loaded[record.path] = plugin
      // Hashed now, before a rebuild replaces the file: the journal names both builds.
      builds.remember(plugin)
    }
    let opened = try openJournal(for: plugin, number: number, recorded: recorded)
    let fanOut = StoreListeners(
      plugin: plugin, stage: coordinator, listeners: [RuntimeListener(runtime: self)] + listeners)
    let store: Store
    var options = settings.store
    options.rendersViews = isLive
    do {
      store = try Store(
        plugin: plugin, config: opened.config, options: options,
        journal: opened.journal, instances: reloadingInstances, observer: fanOut.observer)
    } catch {
      opened.journal.close()
      throw error
    }
    let feature = PresentedFeature(
      plugin: plugin, store: store, number: number,
      context: Context(journal: opened.journal, relativePath: opened.relativePath))
    fanOut.attach(feature)
    if number == 1 { firstFeature = feature }
    do {
      if let point = opened.restorePoint {
        try store.start(restored: true) { instance throws(HostError) in try point.apply(to: instance) }
      } else {
        let id = plugin.id
        let journal = opened.journal
        try store.start(restored: false) { instance throws(HostError) in
          let state: String
          do throws(PluginCallError) {
            state = try instance.snapshot()
          } catch {
            throw HostError(StoreFailure.firstSnapshotFailed(feature: id, error))
          }
          try journal.recordInitialState(state)
        }
      }
    } catch {
      store.stop()
      throw error
    }
    return feature
  }

  public func retire(_ feature: PresentedFeature) {
    let report = feature.store.stop()
    if report.unapplied > 0 { reporter.notice(.unapplied(feature: feature.id, count: report.unapplied)) }
    if report.late > 0 { reporter.notice(.late(feature: feature.id, count: report.late)) }
    if report.afterClosing > 0 {
      reporter.notice(.afterClosing(feature: feature.id, count: report.afterClosing))
    }
    if report.refused > 0 { reporter.notice(.refusedEmits(feature: feature.id, count: report.refused)) }
  }

  public func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {
    let drawing = renderers.filter { $0.draws(on: reason) }
    guard !drawing.isEmpty else { return }
    // Draw what the features reached once the actions the navigation started are applied (a
    // zero-interval feedback loop runs to its end), not a moment the thread schedule picked.
    for feature in features { feature.store.waitUntilIdle(timeout: settings.settleTimeout) }
    for renderer in drawing { renderer.show(features, focus: focus, reason: reason) }
  }

  public func record(step: String, frames: [(features: [PresentedFeature], focus: Int)]) {
    guard let navigation else { return }
    let recorded = frames.map { frame in
      NavigationJournal.Frame(
        features: frame.features.map { feature in
          NavigationJournal.Feature(id: feature.id, journal: (feature.context as? Context)?.relativePath ?? "")
        }, focus: frame.focus)
    }
    do {
      try navigation.append(step: step, frames: recorded)
      if navigationUnsaved {
        navigationUnsaved = false
        reporter.notice(.navigationJournalSaved)
      }
    } catch {
      // As a feature journal's failed commit: told once, retried at each step, and the exit
      // status says so.
      journalTrouble.store(true, ordering: .relaxed)
      guard !navigationUnsaved else { return }
      navigationUnsaved = true
      reporter.report(error)
      reporter.notice(.navigationJournalUnsaved)
    }
  }

  public func log(_ line: String, isNote: Bool) {
    reporter.notice(isNote ? .stepIgnored(line) : .navigation(line))
  }

  // MARK: - Journals

  private struct OpenedJournal {
    let journal: SessionJournal
    let config: String
    let restorePoint: JournalRestorePoint?
    let relativePath: String?
  }

  /// The journal of a feature: the named session's (restored when it exists), or a temporary one.
  private func openJournal(
    for plugin: LoadedPlugin, number: Int, recorded: String?
  ) throws(HostError) -> OpenedJournal {
    let featureConfig = config(plugin, number)
    guard let name = settings.session else {
      let path = "\(temporaryFolder ?? NSTemporaryDirectory())/\(number)-\(plugin.id).jsonl"
      let journal = try SessionJournal.create(at: path, plugin: plugin, config: featureConfig, temporary: true)
      return OpenedJournal(journal: journal, config: featureConfig, restorePoint: nil, relativePath: nil)
    }
    let directory = try sessionDirectory()
    try directory.ensureExists()
    let relative: String
    if let recorded {
      relative = recorded
    } else if !launchedFirst {
      // The first feature of a session journals into NAME.jsonl, as a one-feature session does.
      relative = "\(name).\(SessionDirectory.fileExtension)"
    } else {
      lastJournalNumber += 1
      relative = "\(name).d/\(lastJournalNumber)-\(plugin.id).\(SessionDirectory.fileExtension)"
    }
    launchedFirst = true
    let path = "\(directory.root)/\(relative)"
    if !FileManager.default.fileExists(atPath: path) {
      if recorded != nil { throw HostError(RuntimeFailure.journalMissing(session: name, journal: relative)) }
      do {
        let journal = try SessionJournal.create(at: path, plugin: plugin, config: featureConfig)
        return OpenedJournal(journal: journal, config: featureConfig, restorePoint: nil, relativePath: relative)
      } catch  where Self.wasMadeMeanwhile(error) {
        // Another host made it (and let go of it) since we looked: restore it, as a rerun would.
      }
    }
    let opened = try SessionJournal.open(at: path, plugin: plugin)
    if let torn = opened.tornTail { reporter.notice(.tornJournal(detail: "\(torn)")) }
    if let damage = opened.damage, let aside = opened.setAsidePath {
      reporter.notice(.damagedJournal(damage, setAside: aside, restoredSeq: opened.restorePoint.lastSeq))
    }
    if number == 1 {
      reporter.notice(
        .sessionRestored(session: name, feature: plugin.id, sequence: opened.restorePoint.lastSeq))
    }
    if settings.configGiven && number == 1 && opened.config != featureConfig {
      reporter.notice(.configKept(session: name, config: opened.config))
    }
    return OpenedJournal(
      journal: opened.journal, config: opened.config, restorePoint: opened.restorePoint, relativePath: relative)
  }

  /// Opens (or creates) the session's navigation journal; returns the stack to restore, if any.
  private func openNavigation() throws(HostError) -> [NavigationJournal.Frame]? {
    guard let name = settings.session else { return nil }
    let directory = try sessionDirectory()
    try directory.ensureExists()
    let folder = "\(directory.root)/\(name).d"
    let path = "\(folder)/navigation.jsonl"
    // Journals of features presented before are numbered; new ones come after them.
    let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    lastJournalNumber = existing.compactMap { Int($0.prefix { $0.isNumber }) }.max() ?? 1
    if !FileManager.default.fileExists(atPath: path) {
      do {
        navigation = try NavigationJournal.create(at: path, flow: flow.name)
        return nil
      } catch  where Self.wasMadeMeanwhile(error) {
        // Another host made it (and let go of it) since we looked: restore it, as a rerun would.
      }
    }
    let (journal, last, torn) = try NavigationJournal.open(at: path)
    if torn { reporter.notice(.tornNavigation(path: path)) }
    navigation = journal
    return last?.frames
  }

  /// Whether a create failed only because the file appeared after we looked for it.
  private static func wasMadeMeanwhile(_ error: HostError) -> Bool {
    guard case .alreadyExists = error.failure as? JournalFailure else { return false }
    return true
  }

  private func sessionDirectory() throws(HostError) -> SessionDirectory {
    if let sessions = settings.sessions { return sessions }
    return try SessionDirectory.default()
  }

  /// A fresh folder for the run's journals in the user's folder of them, `featurehost-runs-UID`
  /// (see `HostFolders`); a process's first run there first sweeps away the folders of hosts that
  /// were killed before they could remove theirs.
  private static func makeTemporaryFolder(in root: String) throws(HostError) -> String {
    let base = root.hasSuffix("/") ? String(root.dropLast()) : root
    guard let parent = HostFolders.userFolder(in: base, named: "featurehost-runs") else {
      throw HostError(
        RuntimeFailure.noTemporaryFolder(
          reason: "\(base)/featurehost-runs-\(geteuid()) is not a folder of this user's that only they may open"))
    }
    HostFolders.sweepOnce(parent)
    guard let folder = HostFolders.make(in: parent) else {
      throw HostError(RuntimeFailure.noTemporaryFolder(reason: String(cString: strerror(errno))))
    }
    return folder
  }
}

/// The runtime's own listener: routes steps to the coordinator and reports what goes wrong.
/// Holds the runtime weakly: a store never keeps its runtime alive.
private final class RuntimeListener: StoreListener {
  private let runtime: Mutex<Weak>

  private struct Weak: Sendable { weak var runtime: SessionRuntime? }

  init(runtime: SessionRuntime) {
    self.runtime = Mutex(Weak(runtime: runtime))
  }

  /// Nothing of an applied action reaches the runtime.
  var hearsApplied: Bool { false }

  func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    guard let runtime = runtime.withLock({ $0.runtime }) else { return }
    let id = origin.plugin.id
    switch event {
    case .step(let json):
      guard let feature = origin.feature else { return }
      runtime.coordinator?.receive(step: json, from: feature)
    case .rejected(let action, let source, let error, let inputLine):
      var refusal = HostError(RuntimeFailure.actionRefused(feature: id, source: source, action: action, error))
      refusal.inputLine = inputLine
      runtime.reporter.report(refusal)
    case .paused(let error), .emitRefused(let error):
      runtime.reporter.report(error)
    case .log(let level, let message):
      if level >= .warning { runtime.reporter.notice(.pluginLog(feature: id, message: message)) }
    case .refusedBySandbox(let refusal):
      if runtime.sandboxRefusalsSaid.withLock({ $0.insert("\(id) \(refusal.kind)").inserted }) {
        runtime.reporter.notice(.sandboxRefused(feature: id, refusal: refusal))
      }
    case .journalFailed(let error):
      runtime.journalTrouble.store(true, ordering: .relaxed)
      runtime.reporter.report(error)
      if case .unsavedAtStop = error.failure as? StoreFailure { return }
      runtime.reporter.notice(.journalDropped(feature: id))
    case .journalUnsaved(let error):
      runtime.journalTrouble.store(true, ordering: .relaxed)
      runtime.reporter.report(error)
      runtime.reporter.notice(.journalUnsaved(feature: id))
    case .journalSaved:
      runtime.reporter.notice(.journalSaved(feature: id))
    case .instanceLost(let loss, let call, let action):
      runtime.reporter.report(HostError(StoreFailure.crashed(feature: id, loss: loss, call: call, action: action)))
    case .instanceRestarted(let sequence):
      runtime.reporter.notice(.restarted(feature: id, sequence: sequence))
    case .closed(let error):
      // Marked closed before it is said: whoever reads the message and types finds it so.
      if let feature = origin.feature { runtime.closed(feature) }
      runtime.reporter.report(error)
    case .applied, .viewChanged:
      break
    }
  }
}
